// A player's dropped frames (actors/player/frameDrops.ts): every drop counted, each cause and kind logged once, and
// at most 256 causes remembered (a peer that varies the kind cannot grow the set without bound).
import { describe, expect, it } from 'vitest';
import { FrameDrops } from '../../actors/player/frameDrops.ts';

describe('FrameDrops', () => {
  it('counts every drop and logs each cause and kind once', () => {
    const lines: unknown[] = [];
    const drops = new FrameDrops((entry) => lines.push(entry));
    for (let i = 0; i < 3; i++) {
      drops.drop('frame refused: tag', 50);
      drops.drop('frame refused: tag', 31);
      drops.drop('message before Welcome', 0);
    }
    expect(drops.count).toBe(9);
    expect(lines).toEqual([
      { msg: 'frame refused: tag', kind: 50 },
      { msg: 'frame refused: tag', kind: 31 },
      { msg: 'message before Welcome', kind: 0 },
    ]);
  });

  it('remembers at most 256 causes: past them a new cause is logged each time, the count still exact', () => {
    const lines: unknown[] = [];
    const drops = new FrameDrops((entry) => lines.push(entry));
    for (let kind = 0; kind < 300; kind++) drops.drop('frame refused: open', kind);
    drops.drop('frame refused: open', 0); // remembered: not logged again
    drops.drop('frame refused: open', 299); // past the bound: logged again
    expect(drops.count).toBe(302);
    expect(lines).toHaveLength(301);
  });
});
