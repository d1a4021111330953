// What the host holds for a resync round's participant while the save travels (spec "While the save travels"): from
// the announcement of the file until its ResyncLoad, every message for it but the session layer's own (Ping,
// ResyncChunk, ResyncLoad, Kicked) is kept in the order it was made, as a message (HostSession seals it when it is
// released, so its counter comes after the chunks' and the replay window takes it), and sent right after its
// ResyncLoad, so the reloaded game reads it after its load line. A participant that leaves is forgotten with what was kept for it.
import type { KindName } from '../../protocol/messages/index.ts';
import type { Message } from '../wire.ts';

/** The session layer's own kinds: they go out at once, also to a held participant. */
export const NEVER_HELD: ReadonlySet<KindName> = new Set<KindName>(['Ping', 'ResyncChunk', 'ResyncLoad', 'Kicked']);

export type HeldItem = Uint8Array | Message;

/** `T`: what is kept (HostSession keeps messages). */
export class HeldMessages<T = HeldItem> {
  readonly #held = new Map<number, T[]>();

  /** Holds from now on what is made for these games (0: the host's own). */
  hold(ids: readonly number[]): void {
    for (const id of ids) if (!this.#held.has(id)) this.#held.set(id, []);
  }

  /** Whether a message of `kind` for `id` would be kept now (`id` is held and the kind waits). */
  holds(id: number, kind: KindName): boolean {
    return this.#held.has(id) && !NEVER_HELD.has(kind);
  }

  /** Keeps `item` of `kind` for `id` if `id` is held and the kind waits; false: send it now. */
  keep(id: number, kind: KindName, item: T): boolean {
    const held = this.#held.get(id);
    if (held === undefined || NEVER_HELD.has(kind)) return false;
    held.push(item);
    return true;
  }

  /** Ends the hold of `id`: what was kept, in order (undefined when it was not held). */
  take(id: number): T[] | undefined {
    const held = this.#held.get(id);
    this.#held.delete(id);
    return held;
  }
}
