// Reading a recorded trace into what the inspector shows (inspect/sessionModel.ts, inspect/waitPanel.ts): the
// fixture of a stalled round made from a real run (fixtures/makeStalledTrace.ts) and small hand-made line sets for
// the rules: a torn line skipped, states and since, pending delays kept until delivered or cancelled, players'
// names, and the waits derived from a context (`waitingFor` as a list, a set, a map).
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { modelAt, playerLabel, stateText } from '../../inspect/sessionModel.ts';
import { parseTrace, type TraceLine } from '../../inspect/traceFormat.ts';
import { formatLeft, waitPanels, waitedPlayers } from '../../inspect/waitPanel.ts';

const fixture = readFileSync(new URL('./fixtures/stalled-round.trace.jsonl', import.meta.url), 'utf8');

describe('the stalled-round fixture', () => {
  const lines = parseTrace(fixture);
  const model = modelAt(lines, lines.length);

  it('names every actor of the host by systemId with its state', () => {
    expect(lines[0]!.type).toBe('@trace.file');
    expect(model.actors.get('lockstep')?.state).toBe('Paused');
    expect(model.actors.get('pauseOrder')?.state).toBe('Paused.Idle');
    expect(model.actors.get('slot:1')?.state).toBe('Away');
    expect(model.actors.get('slot:2')?.state).toBe('Connected');
    expect(model.players.get(1)).toBe('player2');
  });

  it('shows the missing player and the reconnect window counting down on the session clock', () => {
    const slot = waitPanels(model).find((p) => p.actor === 'slot:1')!;
    expect(slot.waitingFor).toEqual([{ id: 1, label: 'player2 (1)' }]);
    expect(slot.timers).toHaveLength(1);
    expect(slot.timers[0]!.event).toBe('after reconnectWindow');
    const left = slot.timers[0]!.left;
    expect(left).toBeGreaterThan(290_000);
    expect(left).toBeLessThan(300_000);
    // Earlier in the trace, the same window had more time left.
    const scheduledAt = lines.findIndex((l) => l.type === '@trace.schedule' && l.actor === 'slot:1');
    const earlier = waitPanels(modelAt(lines, scheduledAt + 1)).find((p) => p.actor === 'slot:1')!;
    expect(earlier.timers[0]!.left).toBe(300_000);
  });

  it('steps back to the state before the stall', () => {
    const firstAway = lines.findIndex((l) => l.type === '@xstate.snapshot' && l.actor === 'slot:1' && l.snapshot.value === 'Away');
    expect(modelAt(lines, firstAway).actors.get('slot:1')?.state).toBe('Connected');
    expect(modelAt(lines, firstAway + 1).actors.get('slot:1')?.state).toBe('Away');
  });
});

const base = { sessionId: 'x:1', actor: 'checksumRounds' };
const trace = (...lines: object[]) => lines.map((l) => JSON.stringify(l)).join('\n');

describe('folding lines', () => {
  it('skips a torn last line', () => {
    const text = `${trace({ t: 0, type: '@xstate.actor', ...base })}\n{"t":1,"type":"@xstate.snap`;
    expect(parseTrace(text)).toHaveLength(1);
  });

  it('keeps a pending delay until it is delivered or cancelled, and a round panel with its waits', () => {
    const lines = parseTrace(
      trace(
        { t: 0, type: '@xstate.actor', machine: 'checksumRounds', ...base },
        { t: 0, type: '@xstate.snapshot', ...base, event: { type: 'xstate.init' }, snapshot: { status: 'active', value: 'Idle', context: {} } },
        { t: 5, type: '@xstate.snapshot', ...base, event: { type: 'start' }, snapshot: { status: 'active', value: { Round: 'Collecting' }, context: { waitingFor: { $set: [2, 3] } } } },
        { t: 5, type: '@trace.schedule', ...base, id: 'xstate.after.roundTimeout.c.Round', to: 'checksumRounds', event: { type: 'xstate.after.roundTimeout.c.Round' }, delay: 10_000, due: 10_005 },
        { t: 6, type: '@xstate.snapshot', sessionId: 'x:2', actor: 'slot:2', event: { type: 'xstate.init' }, snapshot: { status: 'active', value: 'Connected', context: { name: 'ann' } } },
        { t: 8, type: '@xstate.event', ...base, source: 'checksumRounds', event: { type: 'xstate.after.roundTimeout.c.Round' }, scheduled: 'xstate.after.roundTimeout.c.Round' },
      ),
    ) as TraceLine[];
    const during = modelAt(lines, 5);
    expect(during.actors.get('checksumRounds')).toMatchObject({ state: 'Round.Collecting', since: 5 });
    const [panel] = waitPanels(during);
    expect(panel).toMatchObject({ actor: 'checksumRounds', state: 'Round.Collecting', since: 5 });
    expect(panel!.waitingFor.map((w) => w.label)).toEqual(['ann (2)', 'player 3']);
    expect(panel!.timers).toEqual([{ actor: 'checksumRounds', event: 'after roundTimeout', due: 10_005, left: 10_000 - 1 }]);
    expect(modelAt(lines, 6).pending.size).toBe(0);
  });

  it('reads waits from a list, a map keyed by id, or entries with an id', () => {
    expect(waitedPlayers({ waitingFor: [1, 2] })).toEqual([1, 2]);
    expect(waitedPlayers({ awaiting: { '4': true, '7': true } })).toEqual([4, 7]);
    expect(waitedPlayers({ missing: [{ id: 5, name: 'x' }] })).toEqual([5]);
    expect(waitedPlayers({ waitingFor: { $map: [[3, 'a']] } })).toEqual([3]);
    expect(waitedPlayers({ other: [1] })).toBeUndefined();
  });

  it('writes states, players and time left readably', () => {
    expect(stateText({ Paused: 'WaitingForStops' })).toBe('Paused.WaitingForStops');
    expect(stateText({ a: 'x', b: { c: 'y' } })).toBe('(a.x, b.c.y)');
    expect(playerLabel({ players: new Map([[2, 'ann']]) }, 2)).toBe('ann (2)');
    expect(formatLeft(298_400)).toBe('4:58');
    expect(formatLeft(12_345)).toBe('12.3 s');
  });
});
