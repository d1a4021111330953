// What the host holds for a resync participant while the save travels (actors/host/heldMessages.ts).
import { describe, expect, it } from 'vitest';
import { HeldMessages } from '../../actors/host/heldMessages.ts';

describe('held messages', () => {
  it('keeps what waits for a held game in order, lets the session layer through, and ends the hold once', () => {
    const held = new HeldMessages();
    const a = new Uint8Array([1]);
    const b = new Uint8Array([2]);
    expect(held.keep(1, 'Action', a)).toBe(false); // not held: sent now
    held.hold([1, 0]);
    expect(held.keep(1, 'Action', a)).toBe(true);
    expect(held.keep(1, 'Ping', b)).toBe(false);
    expect(held.keep(1, 'ResyncChunk', b)).toBe(false);
    expect(held.keep(1, 'ResyncLoad', b)).toBe(false);
    expect(held.keep(1, 'Kicked', b)).toBe(false);
    expect(held.keep(1, 'Session', b)).toBe(true);
    const local = { kind: 'Chat', payload: { text: 'x' } } as const;
    expect(held.keep(0, 'Chat', local)).toBe(true);
    expect(held.take(1)).toEqual([a, b]);
    expect(held.take(1)).toBeUndefined();
    expect(held.keep(1, 'Action', a)).toBe(false);
    expect(held.take(0)).toEqual([local]);
  });
});
