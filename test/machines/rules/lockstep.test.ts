// The start check: every ready game has reported a clock since its Hello; a game at another time than the host
// game's starts as an outsider (spec "Outsiders"); a relay-only host waits until every game stands at one time.
import { describe, expect, it } from 'vitest';
import { futureStamp, pauseAtFor, startCheck } from '../../../machines/rules/lockstep.ts';

describe('startCheck', () => {
  it('passes when the host’s game and every ready game stand at the same time', () => {
    expect(startCheck([{ id: 0, clock: { t: 4000 } }, { id: 2, clock: { t: 4000 } }])).toEqual({ ok: true, t: 4000, outsiders: [] });
    expect(startCheck([{ id: 0, clock: { t: 0 } }])).toEqual({ ok: true, t: 0, outsiders: [] });
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

  it('starts at the host game’s time; the games that stand apart start as outsiders', () => {
    const at = (id: number, t: number) => ({ id, clock: { t } });
    const check = startCheck([at(2, 1400), at(0, 1000), at(1, 1400)]);
    expect(check).toEqual({ ok: true, t: 1000, outsiders: [{ id: 1, t: 1400 }, { id: 2, t: 1400 }] });
  });

  it('a relay-only host has no world to copy: it names the games that stand apart and waits', () => {
    const at = (id: number, t: number) => ({ id, clock: { t } });
    expect(startCheck([at(2, 1400), at(1, 1000), at(3, 1400)], false)).toEqual({
      ok: false,
      waiting:
        'the games stand at different times (game 1 at 1000; 2, 3 at 1400); every game must load the same save ' +
        '(a host without a game of its own has no world to copy)',
    });
    expect(startCheck([at(2, 1400), at(1, 1400)], false)).toEqual({ ok: true, t: 1400, outsiders: [] });
  });
});

describe('pauseAtFor', () => {
  it('keeps a pause in force', () => {
    expect(pauseAtFor({ pauseAt: 5000, ran: true, hostT: 9000, maxClock: 9000, lead: 4 })).toBe(5000);
  });

  it('pauses a session that never ran at the host game’s t', () => {
    expect(pauseAtFor({ pauseAt: undefined, ran: false, hostT: 4200, maxClock: 9000, lead: 4 })).toBe(4200);
  });

  it('otherwise pauses at futureStamp(maxClock, lead)', () => {
    expect(pauseAtFor({ pauseAt: undefined, ran: true, hostT: 4200, maxClock: 9050, lead: 4 })).toBe(futureStamp(9050, 4));
    expect(pauseAtFor({ pauseAt: undefined, ran: true, hostT: 4200, maxClock: undefined, lead: 4 })).toBe(
      futureStamp(4200, 4),
    );
  });
});
