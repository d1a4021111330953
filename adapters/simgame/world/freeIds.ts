// The free-id queue of the simulated world: like the engine's, ids of removed entities are reused,
// so two games that remove and create in a different order hand out different ids (architecture.txt
// §6 "Where ids come from"). FIFO: the id freed first is reused first.
import type { IdQueue } from './types.ts';

/** Takes an id: the oldest freed one, or a fresh one when none is free. */
export function allocateId(ids: IdQueue): number {
  const reused = ids.free.shift();
  if (reused !== undefined) return reused;
  const id = ids.next;
  ids.next += 1;
  return id;
}

/** Gives an id back; it is reused after every id freed before it. */
export function freeId(ids: IdQueue, id: number): void {
  ids.free.push(id);
}
