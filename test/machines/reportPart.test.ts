// Each launcher's part of a bug report (machines/reportPart.ts) on a simulated clock: collect → send → Idle, a
// failure, the 60 s collect and 600 s send timeouts, a newer ask replacing the one in progress, a connection lost or
// resumed abandoning the part, and an ask handled before (the host's catch-up resending it) never built or sent
// again; then model paths from xstate/graph replayed on a live actor with every transition covered.
import { describe, expect, it } from 'vitest';
import { createActor, fromTransition, SimulatedClock } from 'xstate';
import { HANDLED_IDS_KEPT, REPORT_PART_LOG, reportPartMachine, type ReportPartCommand, type ReportPartEmitted, type ReportPartEvent } from '../../machines/reportPart.ts';
import { REPORT_PARTS_TIMEOUT_MS, REPORT_SEND_TIMEOUT_MS } from '../../machines/rules/reportRound.ts';
import type { ReportAskPayload } from '../../protocol/messages/index.ts';
import { everyEdge } from './graphEdges.ts';

const ask = (id: number): ReportAskPayload => ({ id, report: 1, by: 2, byName: 'Ada', maxBytes: 8 * 1024 * 1024, salt: 'c2FsdA' });
const ASK = (id: number): ReportPartEvent => ({ type: 'recv.ReportAsk', payload: ask(id) });
const ZIPPED: ReportPartEvent = { type: 'part.zipped', path: '/s/part-5.zip', bytes: 4096, sha256: 'cd'.repeat(32) };

function start() {
  const clock = new SimulatedClock();
  const parent = createActor(fromTransition((seen: ReportPartCommand[], e: ReportPartCommand) => [...seen, e], [] as ReportPartCommand[])).start();
  const notices: ReportPartEmitted[] = [];
  const actor = createActor(reportPartMachine, { clock, input: { parent }, systemId: 'reportPart' });
  actor.on('reportPart.notice', (e) => notices.push(e));
  actor.start();
  return { actor, clock, notices, commands: () => parent.getSnapshot().context, value: () => String(actor.getSnapshot().value) };
}

describe('report part chart', () => {
  it('an ask is collected, then sent as the ask\'s transfer, then done', () => {
    const t = start();
    t.actor.send(ASK(5));
    expect(t.value()).toBe('Collecting');
    expect(t.commands()).toEqual([{ type: 'out.collect', ask: ask(5) }]);
    t.actor.send(ZIPPED);
    expect(t.value()).toBe('Sending');
    expect(t.commands().at(-1)).toEqual({ type: 'out.sendPart', ask: ask(5), path: '/s/part-5.zip', bytes: 4096, sha256: 'cd'.repeat(32) });
    t.actor.send({ type: 'part.sent' });
    expect(t.value()).toBe('Idle');
    expect(t.notices.map((n) => n.msg)).toEqual([REPORT_PART_LOG.asked, REPORT_PART_LOG.sending, REPORT_PART_LOG.sent]);
  });

  it('never resent after a resume: the same ask again (the host\'s catch-up) is ignored, before and after the part went', () => {
    const t = start();
    t.actor.send(ASK(5));
    t.actor.send(ASK(5));
    t.actor.send(ZIPPED);
    t.actor.send(ASK(5));
    t.actor.send({ type: 'part.sent' });
    t.actor.send(ASK(5));
    expect(t.value()).toBe('Idle');
    expect(t.commands().map((c) => c.type)).toEqual(['out.collect', 'out.sendPart']);
    expect(t.notices.filter((n) => n.msg === REPORT_PART_LOG.ignored)).toHaveLength(3);
  });

  it('a connection lost or resumed while collecting or sending abandons the part; the same ask after the resume is not served', () => {
    for (const lost of [{ type: 'conn.closed', reason: 'peer-closed' }, { type: 'conn.resumed' }] as ReportPartEvent[]) {
      for (const at of ['Collecting', 'Sending']) {
        const t = start();
        t.actor.send(ASK(5));
        if (at === 'Sending') t.actor.send(ZIPPED);
        t.actor.send(lost);
        expect(t.value()).toBe('Idle');
        expect(t.commands().at(-1)).toMatchObject({ type: 'out.cancel', id: 5 });
        t.actor.send(ASK(5));
        expect(t.value(), `${lost.type} in ${at}`).toBe('Idle');
      }
    }
  });

  it('not zipped within 60 s or not sent within 600 s: abandoned; a failure: back to Idle', () => {
    const a = start();
    a.actor.send(ASK(5));
    a.clock.increment(REPORT_PARTS_TIMEOUT_MS - 1);
    expect(a.value()).toBe('Collecting');
    a.clock.increment(1);
    expect(a.commands().at(-1)).toEqual({ type: 'out.cancel', id: 5, why: 'not collected within 60 s' });

    const b = start();
    b.actor.send(ASK(5));
    b.actor.send(ZIPPED);
    b.clock.increment(REPORT_SEND_TIMEOUT_MS - 1);
    expect(b.value()).toBe('Sending');
    b.clock.increment(1);
    expect(b.commands().at(-1)).toEqual({ type: 'out.cancel', id: 5, why: 'not sent within 600 s' });

    const c = start();
    c.actor.send(ASK(5));
    c.actor.send({ type: 'part.failed', why: 'EACCES' });
    expect(c.value()).toBe('Idle');
    expect(c.notices.at(-1)).toMatchObject({ msg: REPORT_PART_LOG.abandoned, why: 'EACCES', level: 'warn' });
  });

  it('a newer ask replaces the one in progress (cancel the old, collect the new)', () => {
    const t = start();
    t.actor.send(ASK(5));
    t.actor.send(ASK(9));
    expect(t.commands().slice(1)).toEqual([{ type: 'out.cancel', id: 5, why: 'replaced by transfer 9' }, { type: 'out.collect', ask: ask(9) }]);
    t.actor.send(ZIPPED);
    t.actor.send(ASK(12));
    expect(t.value()).toBe('Collecting');
    expect(t.commands().slice(-2)).toEqual([{ type: 'out.cancel', id: 9, why: 'replaced by transfer 12' }, { type: 'out.collect', ask: ask(12) }]);
    // The replaced collect timer starts again with the new ask.
    t.clock.increment(REPORT_PARTS_TIMEOUT_MS - 1);
    expect(t.value()).toBe('Collecting');
  });

  it('remembers the last 32 handled ids', () => {
    const t = start();
    for (let id = 1; id <= HANDLED_IDS_KEPT + 1; id++) {
      t.actor.send(ASK(id));
      t.actor.send({ type: 'part.failed', why: 'x' });
    }
    expect(t.actor.getSnapshot().context.handled).toHaveLength(HANDLED_IDS_KEPT);
    t.actor.send(ASK(1));
    expect(t.value()).toBe('Collecting');
  });

  it('every waiting state says whom it waits for, and its timeout by name', () => {
    const s = reportPartMachine.root.states;
    expect(s.Collecting!.description).toMatch(/collector.*maxBytes.*collectTimeout.*never resent after a resume/s);
    expect(s.Sending!.description).toMatch(/host.*ReportPart.*sendTimeout.*never resent after a resume/s);
    expect(s.Collecting!.after.map((a) => a.delay)).toEqual(['collectTimeout']);
    expect(s.Sending!.after.map((a) => a.delay)).toEqual(['sendTimeout']);
  });
});

const S = reportPartMachine.root.states;
const TIMEOUTS: Record<string, { state: string; ms: number }> = {
  [S.Collecting!.after[0]!.eventType]: { state: 'Collecting', ms: REPORT_PARTS_TIMEOUT_MS },
  [S.Sending!.after[0]!.eventType]: { state: 'Sending', ms: REPORT_SEND_TIMEOUT_MS },
};
const MODEL_EVENTS: ReportPartEvent[] = [
  ASK(5),
  ASK(9),
  ZIPPED,
  { type: 'part.failed', why: 'x' },
  { type: 'part.sent' },
  { type: 'conn.closed', reason: 'peer-closed' },
  { type: 'conn.resumed' },
  ...Object.keys(TIMEOUTS).map((type) => ({ type }) as unknown as ReportPartEvent),
];
const serialize = (s: { value: unknown; context: { ask: ReportAskPayload | undefined; handled: number[] } }) =>
  `${String(s.value)}|${s.context.ask?.id ?? '-'}|${[...s.context.handled].sort().join(',')}`;

describe('model paths (xstate/graph)', () => {
  it('replays every edge on a live actor, covering every transition of the chart', () => {
    const edges = everyEdge(reportPartMachine, { input: { parent: undefined as never }, events: MODEL_EVENTS, serializeState: serialize as never });
    const taken = new Set<string>();
    const send = (t: ReturnType<typeof start>, e: ReportPartEvent) => {
      const timeout = TIMEOUTS[e.type];
      if (timeout === undefined) t.actor.send(e);
      else if (t.value() === timeout.state) t.clock.increment(timeout.ms);
    };
    for (const edge of edges) {
      const t = start();
      for (const e of edge.path) send(t, e);
      expect(serialize(t.actor.getSnapshot() as never)).toBe(edge.from);
      const before = t.value();
      const handledBefore = edge.event.type === 'recv.ReportAsk' && t.actor.getSnapshot().context.handled.includes(edge.event.payload.id);
      send(t, edge.event);
      expect(serialize(t.actor.getSnapshot() as never)).toBe(edge.to);
      const kind = edge.event.type === 'recv.ReportAsk' ? (handledBefore ? 'ask(handled)' : 'ask(new)') : edge.event.type.startsWith('xstate.after') ? 'timeout' : edge.event.type;
      taken.add(`${before} --${kind}--> ${t.value()}`);
      t.actor.stop();
    }
    const expected = [
      'Idle --ask(new)--> Collecting',
      'Idle --ask(handled)--> Idle',
      'Collecting --ask(new)--> Collecting',
      'Collecting --ask(handled)--> Collecting',
      'Collecting --part.zipped--> Sending',
      'Collecting --part.failed--> Idle',
      'Collecting --conn.closed--> Idle',
      'Collecting --conn.resumed--> Idle',
      'Collecting --timeout--> Idle',
      'Sending --ask(new)--> Collecting',
      'Sending --ask(handled)--> Sending',
      'Sending --part.sent--> Idle',
      'Sending --part.failed--> Idle',
      'Sending --conn.closed--> Idle',
      'Sending --conn.resumed--> Idle',
      'Sending --timeout--> Idle',
    ];
    for (const e of expected) expect(taken, e).toContain(e);
  });
});
