// The start check (task: until the resync round exists the host starts only when every ready game stands at
// the same time and has reported a clock; otherwise it says why it waits).
import { describe, expect, it } from 'vitest';
import { startCheck } from '../../../machines/rules/lockstep.ts';

describe('startCheck', () => {
  it('passes when the host’s game and every ready game stand at the same time', () => {
    expect(startCheck([{ id: 0, clock: { t: 4000 } }, { id: 2, clock: { t: 4000 } }])).toEqual({ ok: true, t: 4000 });
    expect(startCheck([{ id: 0, clock: { t: 0 } }])).toEqual({ ok: true, t: 0 });
  });

  it('waits for the host’s game', () => {
    expect(startCheck([])).toEqual({ ok: false, waiting: "the host's game has not said hello yet" });
    expect(startCheck([{ id: 1, clock: { t: 0 } }])).toMatchObject({ ok: false });
  });

  it('waits for a clock from every ready game, naming them', () => {
    expect(startCheck([{ id: 0, clock: { t: 0 } }, { id: 3 }, { id: 1 }])).toEqual({
      ok: false,
      waiting: 'waiting for a clock from game 1, 3',
    });
  });

  it('names the games that stand apart', () => {
    const check = startCheck([{ id: 2, clock: { t: 1400 } }, { id: 0, clock: { t: 1000 } }, { id: 1, clock: { t: 1400 } }]);
    expect(check).toEqual({
      ok: false,
      waiting: 'the games stand at different times (game 0 at 1000; 1, 2 at 1400); every game must load the same save',
    });
  });
});
