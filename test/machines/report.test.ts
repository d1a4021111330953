// The host's bug-report round (machines/report.ts) on a simulated clock: every path the issue names (all parts in, a
// part missing after 60 s, the asker leaving, a busy request, a game leaving mid-report, a refused part) and every
// timeout; then model paths from xstate/graph replayed on a live actor, with every transition of the chart covered.
import { describe, expect, it } from 'vitest';
import { createActor, fromTransition, SimulatedClock } from 'xstate';
import { REPORT_LOG, reportMachine, type ReportCommand, type ReportEmitted, type ReportEvent } from '../../machines/report.ts';
import { REPORT_BUILD_TIMEOUT_MS, REPORT_PART_MAX_BYTES, REPORT_PARTS_TIMEOUT_MS, REPORT_SEND_TIMEOUT_MS, awaited } from '../../machines/rules/reportRound.ts';
import { everyEdge } from './graphEdges.ts';

const GAMES = [
  { id: 0, name: 'Host' },
  { id: 1, name: 'Ada' },
  { id: 2, name: 'Bob' },
];
const request = (from = 1, fromName = 'Ada', note?: string): ReportEvent => ({
  type: 'recv.ReportRequest',
  from,
  fromName,
  ...(note === undefined ? {} : { note }),
  games: GAMES,
  salt: 'c2FsdA',
  at: 1_000,
});
const READY: ReportEvent = { type: 'bundle.ready', path: '/s/feverlink3-report-1.zip', bytes: 1234, sha256: 'ab'.repeat(32) };

function start(machine = reportMachine) {
  const clock = new SimulatedClock();
  const parent = createActor(fromTransition((seen: ReportCommand[], e: ReportCommand) => [...seen, e], [] as ReportCommand[])).start();
  const notices: ReportEmitted[] = [];
  const actor = createActor(machine, { clock, input: { parent }, systemId: 'report' });
  actor.on('report.notice', (e) => notices.push(e));
  actor.start();
  return {
    actor,
    clock,
    notices,
    commands: () => parent.getSnapshot().context,
    value: () => String(actor.getSnapshot().value),
    round: () => actor.getSnapshot().context.round,
  };
}

const types = (commands: ReportCommand[]) => commands.map((c) => c.type);

describe('report round chart', () => {
  it('asks every ready game with its own transfer id, 8 MiB and the salt; all parts in → build → send → Idle', () => {
    const t = start();
    t.actor.send(request(1, 'Ada', 'the bridge vanished'));
    expect(t.value()).toBe('Collecting');
    const asks = t.commands().filter((c) => c.type === 'send.ReportAsk');
    expect(asks).toEqual(
      GAMES.map((g, i) => ({
        type: 'send.ReportAsk',
        to: g.id,
        payload: { id: i + 1, report: 1, by: 1, byName: 'Ada', maxBytes: REPORT_PART_MAX_BYTES, salt: 'c2FsdA' },
      })),
    );
    expect(REPORT_PART_MAX_BYTES).toBe(8 * 1024 * 1024);
    for (const g of GAMES) t.actor.send({ type: 'part.received', from: g.id });
    expect(t.value()).toBe('Building');
    expect(t.commands().at(-1)).toEqual({
      type: 'out.build',
      report: 1,
      askedBy: { id: 1, name: 'Ada' },
      note: 'the bridge vanished',
      askedAt: 1_000,
      asked: GAMES,
      missing: [],
    });
    t.actor.send(READY);
    expect(t.value()).toBe('Sending');
    expect(t.commands().at(-1)).toEqual({ type: 'out.sendBundle', report: 1, to: 1, transfer: 4, path: '/s/feverlink3-report-1.zip', bytes: 1234, sha256: 'ab'.repeat(32) });
    t.actor.send({ type: 'bundle.sent' });
    expect(t.value()).toBe('Idle');
    expect(t.round()).toBeUndefined();
    expect(t.notices.map((n) => n.msg)).toEqual([REPORT_LOG.asked, REPORT_LOG.partReceived, REPORT_LOG.partReceived, REPORT_LOG.partReceived, REPORT_LOG.built, REPORT_LOG.sent]);
    // The next report has the next number and fresh transfer ids.
    t.actor.send(request(2, 'Bob'));
    const next = t.commands().filter((c) => c.type === 'send.ReportAsk').slice(3);
    expect(next.map((c) => c.type === 'send.ReportAsk' && [c.payload.report, c.payload.id])).toEqual([[2, 5], [2, 6], [2, 7]]);
  });

  it('a part missing after exactly 60 s is listed missing with why, never waited for longer', () => {
    const t = start();
    t.actor.send(request());
    t.actor.send({ type: 'part.received', from: 0 });
    t.actor.send({ type: 'part.received', from: 1 });
    t.clock.increment(REPORT_PARTS_TIMEOUT_MS - 1);
    expect(t.value()).toBe('Collecting');
    t.clock.increment(1);
    expect(t.value()).toBe('Building');
    expect(t.commands().at(-1)).toMatchObject({ type: 'out.build', missing: [{ id: 2, name: 'Bob', why: 'no part after 60 s' }] });
    expect(t.notices.at(-1)).toMatchObject({ msg: REPORT_LOG.partMissing, game: 'Bob', why: 'no part after 60 s', level: 'warn' });
    // A late part changes nothing.
    t.actor.send({ type: 'part.received', from: 2 });
    expect(t.value()).toBe('Building');
  });

  it('a game leaving mid-report is missing at once with why; the round goes on without it', () => {
    const t = start();
    t.actor.send(request());
    t.actor.send({ type: 'game.left', id: 2, reason: 'peer-closed' });
    expect(awaited(t.round()!.book).map((g) => g.id)).toEqual([0, 1]);
    t.actor.send({ type: 'part.received', from: 0 });
    t.actor.send({ type: 'part.received', from: 1 });
    expect(t.value()).toBe('Building');
    expect(t.commands().at(-1)).toMatchObject({ missing: [{ id: 2, name: 'Bob', why: 'left during the report (peer-closed)' }] });
  });

  it('a refused part is missing with why', () => {
    const t = start();
    t.actor.send(request());
    t.actor.send({ type: 'part.refused', from: 0, why: 'sha256 mismatch' });
    t.actor.send({ type: 'part.received', from: 1 });
    t.actor.send({ type: 'part.received', from: 2 });
    expect(t.commands().at(-1)).toMatchObject({ type: 'out.build', missing: [{ id: 0, why: 'part refused: sha256 mismatch' }] });
  });

  it('a second request while one is made gets ReportBusy naming the report and its asker, in every busy state', () => {
    const t = start();
    t.actor.send(request(1, 'Ada'));
    t.actor.send(request(2, 'Bob'));
    for (const g of GAMES) t.actor.send({ type: 'part.received', from: g.id });
    t.actor.send(request(0, 'Host'));
    t.actor.send(READY);
    t.actor.send(request(1, 'Ada'));
    const busy = t.commands().filter((c) => c.type === 'send.ReportBusy');
    expect(busy).toEqual([
      { type: 'send.ReportBusy', to: 2, payload: { id: 1, byName: 'Ada' } },
      { type: 'send.ReportBusy', to: 0, payload: { id: 1, byName: 'Ada' } },
      { type: 'send.ReportBusy', to: 1, payload: { id: 1, byName: 'Ada' } },
    ]);
    expect(t.value()).toBe('Sending');
    expect(t.commands().filter((c) => c.type === 'send.ReportAsk')).toHaveLength(3);
  });

  it('the asker leaving abandons the round and drops the zip, whatever the state', () => {
    for (const at of ['Collecting', 'Building', 'Sending'] as const) {
      const t = start();
      t.actor.send(request());
      if (at !== 'Collecting') for (const g of GAMES) t.actor.send({ type: 'part.received', from: g.id });
      if (at === 'Sending') t.actor.send(READY);
      expect(t.value()).toBe(at);
      t.actor.send({ type: 'game.left', id: 1, reason: 'left' });
      expect(t.value(), at).toBe('Idle');
      expect(t.commands().at(-1), at).toEqual({ type: 'out.discard', report: 1, why: 'the asker left (left)' });
      expect(t.round()).toBeUndefined();
    }
  });

  it('a zip not closed within 120 s or a bundle not sent within 600 s abandons the round; a failure too', () => {
    const a = start();
    a.actor.send(request());
    a.clock.increment(REPORT_PARTS_TIMEOUT_MS);
    a.clock.increment(REPORT_BUILD_TIMEOUT_MS - 1);
    expect(a.value()).toBe('Building');
    a.clock.increment(1);
    expect(a.value()).toBe('Idle');
    expect(a.commands().at(-1)).toEqual({ type: 'out.discard', report: 1, why: 'the zip was not closed within 120 s' });

    const b = start();
    b.actor.send(request());
    b.clock.increment(REPORT_PARTS_TIMEOUT_MS);
    b.actor.send(READY);
    b.clock.increment(REPORT_SEND_TIMEOUT_MS - 1);
    expect(b.value()).toBe('Sending');
    b.clock.increment(1);
    expect(b.commands().at(-1)).toEqual({ type: 'out.discard', report: 1, why: 'the bundle was not sent within 600 s' });

    const c = start();
    c.actor.send(request());
    c.actor.send({ type: 'bundle.failed', why: 'ENOSPC' });
    expect(c.value()).toBe('Idle');
    expect(c.commands().at(-1)).toEqual({ type: 'out.discard', report: 1, why: 'ENOSPC' });
  });

  it('Idle ignores everything but a request', () => {
    const t = start();
    for (const e of [{ type: 'part.received', from: 0 }, { type: 'game.left', id: 1, reason: 'x' }, READY, { type: 'bundle.sent' }, { type: 'bundle.failed', why: 'x' }] as ReportEvent[]) t.actor.send(e);
    expect(t.value()).toBe('Idle');
    expect(t.commands()).toEqual([]);
  });

  it('every waiting state says whom it waits for, and its timeout by name', () => {
    const states = reportMachine.root.states;
    expect(states.Idle!.description).toMatch(/ReportRequest/);
    expect(states.Collecting!.description).toMatch(/asked game.*60 s.*partsTimeout.*askedBy/s);
    expect(states.Building!.description).toMatch(/zip writer.*buildTimeout/s);
    expect(states.Sending!.description).toMatch(/asker.*sendTimeout/s);
    expect(states.Collecting!.after.map((t) => t.delay)).toEqual(['partsTimeout']);
    expect(states.Building!.after.map((t) => t.delay)).toEqual(['buildTimeout']);
    expect(states.Sending!.after.map((t) => t.delay)).toEqual(['sendTimeout']);
  });
});

// ---- model paths ---------------------------------------------------------------------------------------------

const S = reportMachine.root.states;
/** Each state's timeout event (as xstate/graph names it) → the state it belongs to and its delay. */
const TIMEOUTS: Record<string, { state: string; ms: number }> = {
  [S.Collecting!.after[0]!.eventType]: { state: 'Collecting', ms: REPORT_PARTS_TIMEOUT_MS },
  [S.Building!.after[0]!.eventType]: { state: 'Building', ms: REPORT_BUILD_TIMEOUT_MS },
  [S.Sending!.after[0]!.eventType]: { state: 'Sending', ms: REPORT_SEND_TIMEOUT_MS },
};
const MODEL_EVENTS: ReportEvent[] = [
  request(1, 'Ada'),
  request(2, 'Bob'),
  ...GAMES.map((g) => ({ type: 'part.received', from: g.id }) as ReportEvent),
  { type: 'part.refused', from: 2, why: 'sha256 mismatch' },
  { type: 'game.left', id: 1, reason: 'left' },
  { type: 'game.left', id: 2, reason: 'peer-closed' },
  READY,
  { type: 'bundle.failed', why: 'ENOSPC' },
  { type: 'bundle.sent' },
  ...Object.keys(TIMEOUTS).map((type) => ({ type }) as unknown as ReportEvent),
];
const serialize = (s: { value: unknown; context: { round: { book: Parameters<typeof awaited>[0] } | undefined } }) =>
  `${String(s.value)}|${s.context.round ? awaited(s.context.round.book).map((g) => g.id).join(',') : '-'}`;

describe('model paths (xstate/graph)', () => {
  const edges = everyEdge(reportMachine, { input: { parent: undefined as never }, events: MODEL_EVENTS, serializeState: serialize as never });

  it('replays every edge on a live actor, reaching the state the model says, covering every transition of the chart', () => {
    const taken = new Set<string>();
    const send = (t: ReturnType<typeof start>, e: ReportEvent) => {
      const timeout = TIMEOUTS[e.type];
      if (timeout === undefined) t.actor.send(e);
      // A timeout of another state is an event the model ignores there: nothing happens.
      else if (t.value() === timeout.state) t.clock.increment(timeout.ms);
    };
    const label = (e: ReportEvent) => (e.type === 'game.left' ? `game.left(${e.id === 1 ? 'asker' : 'other'})` : e.type.startsWith('xstate.after') ? 'timeout' : e.type);
    for (const edge of edges) {
      const t = start();
      for (const e of edge.path) send(t, e);
      expect(serialize(t.actor.getSnapshot() as never)).toBe(edge.from);
      const before = t.value();
      const seen = t.commands().length;
      send(t, edge.event);
      expect(serialize(t.actor.getSnapshot() as never)).toBe(edge.to);
      const after = t.value();
      if (before === 'Idle' && after === 'Idle') expect(t.commands().length, `${edge.from} ${edge.event.type}`).toBe(seen);
      taken.add(`${before} --${label(edge.event)}--> ${after}`);
      t.actor.stop();
    }
    const expected = [
      'Idle --recv.ReportRequest--> Collecting',
      'Collecting --recv.ReportRequest--> Collecting',
      'Collecting --part.received--> Collecting',
      'Collecting --part.received--> Building',
      'Collecting --part.refused--> Collecting',
      'Collecting --part.refused--> Building',
      'Collecting --game.left(other)--> Collecting',
      'Collecting --game.left(other)--> Building',
      'Collecting --game.left(asker)--> Idle',
      'Collecting --bundle.failed--> Idle',
      'Collecting --timeout--> Building',
      'Building --recv.ReportRequest--> Building',
      'Building --bundle.ready--> Sending',
      'Building --bundle.failed--> Idle',
      'Building --game.left(asker)--> Idle',
      'Building --timeout--> Idle',
      'Sending --recv.ReportRequest--> Sending',
      'Sending --bundle.sent--> Idle',
      'Sending --bundle.failed--> Idle',
      'Sending --game.left(asker)--> Idle',
      'Sending --timeout--> Idle',
    ];
    for (const e of expected) expect(taken, e).toContain(e);
    expect(edges.length).toBeGreaterThan(100);
  });
});
