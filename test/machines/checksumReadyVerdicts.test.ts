// The verdict book inside the checksum-rounds chart (machines/checksumRounds.ts, rules/verdictBook.ts; spec "Action
// verdicts": the host keeps each action's verdicts until every READY game has answered) when the ready games change,
// on a simulated clock: a game that leaves, or stops being ready, is no longer waited for, so the actions every
// remaining ready game answered alike close at once (no "verdict book full" line later), and verdicts that differ
// between the remaining games still ask for a repair.
import { describe, expect, it } from 'vitest';
import { MAX_OPEN_ACTIONS } from '../../machines/rules/verdictBook.ts';
import { startChart } from './checksumHarness.ts';

const THREE = [
  { id: 0, name: 'host' },
  { id: 1, name: 'bo' },
  { id: 2, name: 'cy' },
];

/** Three ready games; actions 1:1..1:256 answered `applied` by host and bo while cy (slow, reloading) is silent. */
function fullBook() {
  const h = startChart({}, THREE);
  h.start();
  for (let seq = 1; seq <= MAX_OPEN_ACTIONS; seq++) {
    h.verdict(0, seq, true);
    h.verdict(1, seq, true);
  }
  expect(h.context().verdicts.open.size).toBe(MAX_OPEN_ACTIONS);
  return h;
}

/** The next action, answered alike by host and bo: with the old actions still open it would push the oldest out. */
function nextAction(h: ReturnType<typeof startChart>) {
  h.verdict(0, MAX_OPEN_ACTIONS + 1, true);
  h.verdict(1, MAX_OPEN_ACTIONS + 1, true);
}

const fullLines = (h: ReturnType<typeof startChart>) => h.logs().filter((m) => m.startsWith('verdict book full'));

describe('checksum rounds: the verdict book follows the ready games', () => {
  it('a game that leaves: the actions the others answered alike close at once; no "verdict book full" line follows', () => {
    const h = fullBook();
    h.run(1_000);
    h.leave(2);
    expect(h.context().verdicts.open.size).toBe(0);
    nextAction(h);
    h.run(1_000);
    expect(h.context().verdicts.open.size).toBe(0);
    expect(fullLines(h)).toEqual([]);
    expect(h.repairs()).toEqual([]);
  });

  it('a game that stops being ready (the tick names it no more, it stays connected) is no longer waited for either', () => {
    const h = fullBook();
    h.games = THREE.slice(0, 2);
    h.run(100);
    expect(h.context().verdicts.open.size).toBe(0);
    nextAction(h);
    expect(fullLines(h)).toEqual([]);
  });

  it('while every ready game stays, an action cy never answers stays open: the bound pushes the oldest out (the control)', () => {
    const h = fullBook();
    h.run(1_000);
    nextAction(h);
    expect(fullLines(h)).toEqual(['verdict book full: oldest open action forgotten']);
  });

  it('verdicts that differ between the remaining games still ask for a repair', () => {
    const h = startChart({}, THREE);
    h.start();
    h.verdict(0, 1, true); // 1:1 — host applied it; bo has not answered yet
    h.verdict(2, 2, true); // 1:2 — cy and host applied it; bo has not answered yet
    h.verdict(0, 2, true);
    h.leave(2);
    // bo has not answered either action: both stay open, waiting for it.
    expect([...h.context().verdicts.open.keys()]).toEqual(['1:1', '1:2']);
    h.verdict(1, 1, false);
    expect(h.logs()).toContain('verdicts of 1:1 differ');
    expect(h.repairs()).toEqual(['verdicts of 1:1 differ']);
    h.run(1_000);
    h.verdict(1, 2, false);
    expect(h.logs()).toContain('verdicts of 1:2 differ');
    expect(h.logs()).toContain('repair decided in the cooldown: remembered');
    expect(h.context().verdicts.open.size).toBe(0);
  });
});
