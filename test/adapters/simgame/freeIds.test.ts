// The free-id queue: freed ids are reused, oldest freed first (FIFO), in the queue and in the world.
import { describe, expect, it } from 'vitest';
import { allocateId, freeId } from '../../../adapters/simgame/world/freeIds.ts';
import { applyCommand } from '../../../adapters/simgame/world/apply.ts';
import { emptyWorld } from '../../../adapters/simgame/world/create.ts';
import { worldHash } from '../../../adapters/simgame/world/checksum.ts';

describe('free-id queue', () => {
  it('hands out fresh ids, then reuses freed ones oldest first', () => {
    const ids = { next: 1, free: [] as number[] };
    expect([allocateId(ids), allocateId(ids), allocateId(ids), allocateId(ids)]).toEqual([1, 2, 3, 4]);
    freeId(ids, 3);
    freeId(ids, 1);
    expect(allocateId(ids)).toBe(3);
    expect(allocateId(ids)).toBe(1);
    expect(allocateId(ids)).toBe(5);
    expect(ids).toEqual({ next: 6, free: [] });
  });

  it('reuses the ids of a bulldozed road for what is built next', () => {
    const w = emptyWorld(1);
    expect(applyCommand(w, { type: 'buildRoad', from: { x: 0, y: 0 }, to: { x: 50, y: 0 } })).toEqual({ ok: true });
    const roadIds = [...w.nodes.keys(), ...w.edges.keys()].sort();
    expect(roadIds).toEqual([1, 2, 3]);
    expect(applyCommand(w, { type: 'bulldoze', at: { x: 25, y: 0.5 } })).toEqual({ ok: true });
    expect(w.nodes.size + w.edges.size).toBe(0);
    // Edge first, then its ends: the queue holds 3, 1, 2.
    expect(w.ids.free).toEqual([3, 1, 2]);
    const depot = { type: 'buildConstruction', file: 'depot/road_depot.con', at: { x: 100, y: 100 } } as const;
    expect(applyCommand(w, depot)).toEqual({ ok: true });
    expect([...w.constructions.keys()]).toEqual([3]);
    expect(w.ids.next).toBe(4);
  });

  it('gives different ids (but equal checksums except ids) when the same things are made in another order', () => {
    const a = emptyWorld(1);
    const b = emptyWorld(1);
    const road = { type: 'buildRoad', from: { x: 0, y: 0 }, to: { x: 50, y: 0 } } as const;
    const depot = { type: 'buildConstruction', file: 'depot/road_depot.con', at: { x: 100, y: 100 } } as const;
    applyCommand(a, road);
    applyCommand(a, depot);
    applyCommand(b, depot);
    applyCommand(b, road);
    expect([...a.constructions.keys()]).toEqual([4]);
    expect([...b.constructions.keys()]).toEqual([1]);
    // The world's content is the same; only where the ids went differs (the `ids` part says equal too:
    // both handed out 4 ids and freed none), so the whole hash is equal.
    expect(worldHash(a)).toBe(worldHash(b));
  });
});
