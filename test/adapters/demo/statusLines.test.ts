// The demo's live view of the checksum rounds (adapters/demo/status.ts checksumLines; issue 10 item 6: "the live view
// shows the round, the differing part and the repair request"): the last round, the last difference named by part with
// the round that found it and the games on each side, the last repair request with its reason, and with autoResync off
// that the host only requested it.
import { describe, expect, it } from 'vitest';
import type { ChecksumStatus } from '../../../actors/host/checksums.ts';
import { checksumLines, formatTable } from '../../../adapters/demo/status.ts';

function status(autoResync: boolean): ChecksumStatus {
  return {
    rounds: { identical: 4, different: 2, time_skew: 1, dropped: 0 },
    lastRound: { n: 7, paused: false, result: 'different' },
    differences: [
      { n: 6, paused: false, parts: [{ part: 'money', groups: [{ value: 'a', games: [0, 2] }, { value: 'b', games: [1] }] }] },
      {
        n: 7,
        paused: false,
        parts: [
          { part: 'townBuildings:Aldbury', groups: [{ value: '0f', games: [0, 1] }, { value: '1e', games: [2] }] },
          { part: 'vehicles', groups: [{ value: 'x', games: [0, 1] }, { value: undefined, games: [2] }] },
        ],
      },
    ],
    repairRequests: [
      { reason: 'ReplayFailed from game 1: build 1:3 vetoed', at: 10_000, autoResync },
      { reason: 'townBuildings:Aldbury differs in two consecutive rounds', at: 20_000, autoResync },
    ],
  };
}

describe('demo live view: checksum lines', () => {
  it('names the last round, the differing parts of the last difference with the games on each side, and the last repair request with its reason', () => {
    expect(checksumLines(status(true))).toEqual([
      'checksum: round 7 different (identical 4, different 2, skipped 1, dropped 0)',
      '  differs in round 7: townBuildings:Aldbury (games 0, 1 | 2), vehicles (games 0, 1 | 2)',
      '  repair requested (2): townBuildings:Aldbury differs in two consecutive rounds',
    ]);
  });

  it('with autoResync off the repair is only requested', () => {
    const lines = checksumLines(status(false));
    expect(lines.at(-1)).toBe('  repair requested (2): townBuildings:Aldbury differs in two consecutive rounds (autoResync off: only requested)');
    expect(checksumLines(status(true)).join('\n')).not.toContain('only requested');
  });

  it('before any round, and with rounds but no difference: one line each, no repair', () => {
    const none: ChecksumStatus = { rounds: { identical: 0, different: 0, time_skew: 0, dropped: 0 }, differences: [], repairRequests: [] };
    expect(checksumLines(none)).toEqual(['checksum: no round yet (identical 0, different 0, skipped 0, dropped 0)']);
    const clean: ChecksumStatus = { ...none, rounds: { ...none.rounds, identical: 3 }, lastRound: { n: 3, paused: true, result: 'identical' } };
    expect(checksumLines(clean)).toEqual(['checksum: round 3 identical (identical 3, different 0, skipped 0, dropped 0)']);
  });

  it('the live table carries them under the games', () => {
    const table = formatTable([], { started: true, speed: 1, lead: 4 }, status(true));
    expect(table.split('\n')).toEqual(['session: speed 1, lead 4', ...checksumLines(status(true))]);
  });
});
