// What the lockstep gives its pause order at a paused tick (lockstepSteps/pause.ts `pauseViewOf`): the stops of this
// pause by the games of the session's world, pacing or marked, and the pacing games it waits for. An outsider's stop
// is another world's time and a stop below pauseAt an earlier pause's: neither is given.
import { describe, expect, it } from 'vitest';
import { pauseViewOf } from '../../../machines/rules/lockstepSteps/pause.ts';
import type { Ctx } from '../../../machines/rules/lockstepSteps/step.ts';
import type { GameView } from '../../../machines/rules/lockstepTypes.ts';

const standing = (id: number, t: number, view: Partial<GameView> = {}): GameView => ({
  id,
  ready: true,
  hasWorld: true,
  advancedAt: 0,
  clock: { t, speed: 0, ahead: 2, receivedAt: 0, safe: t + 400, stop: true },
  ...view,
});

describe('pauseViewOf', () => {
  it('gives the stops of this pause by pacing and marked world games; waits for the pacing ones', () => {
    const games = {
      0: standing(0, 3_200),
      1: standing(1, 3_200),
      2: standing(2, 3_400, { stalled: { promise: 4_400, since: 0 } }), // a returner that ran past pauseAt alone
      3: standing(3, 99_000, { hasWorld: false }), // an outsider
      4: standing(4, 2_800), // a stop of an earlier pause
    };
    const view = pauseViewOf({ session: { pauseAt: 3_200 }, games } as unknown as Ctx);
    expect(view.stops).toEqual([[0, 3_200], [1, 3_200], [2, 3_400]]);
    expect(view.pacing).toEqual([0, 1, 4]);
  });
});
