// Each launcher's part of a bug report (spec wire-protocol.txt ReportAsk 23, ReportPart 41: "never resent after a
// resume"; lockstep.md "Bug reports"; issue 14 item 1), systemId `reportPart`: Idle → Collecting → Sending → Idle.
//
// A ReportAsk starts the collector (adapters/report/collectPart.ts: launcher.log, the game's logs, the trace, at
// most maxBytes, pseudonymised with the salt, zipped to a file); the zipped part goes to the host as ReportPart
// chunks of the ask's transfer id. A transfer id is handled once: an ask for an id already handled (the host's
// catch-up resending its outbox after a resume) is ignored, so a part is never built or sent twice. A connection lost
// or resumed while the part is collected or sent abandons it (the host lists it missing after its 60 s): a part is
// never resent after a resume. An ask for another id replaces the one in progress (the host's round moved on).
//
// The chart decides; the launcher does the I/O: commands go to the parent ref of the input, log lines are emitted as
// `reportPart.notice` with the log text as `msg`. Timing only from the named delays.
import { assign, enqueueActions, setup } from 'xstate';
import type { ActorRef, Snapshot } from 'xstate';
import type { ReportAskPayload } from '../protocol/messages/index.ts';
import { REPORT_PARTS_TIMEOUT_MS, REPORT_SEND_TIMEOUT_MS } from './rules/reportRound.ts';

/** How many handled transfer ids are remembered (an ask older than these is long past the host's 60 s). */
export const HANDLED_IDS_KEPT = 32;

/** The log texts of a part (the `msg` of each `reportPart.notice`). */
export const REPORT_PART_LOG = {
  asked: 'bug report: collecting this game\'s part',
  ignored: 'bug report: ask already handled, part not resent',
  sending: 'bug report: sending this game\'s part',
  sent: 'bug report: part sent',
  abandoned: 'bug report: part abandoned',
} as const;

export type ReportPartCommand =
  /** Collect and zip this launcher's part for `ask`; report `part.zipped` or `part.failed`. */
  | { type: 'out.collect'; ask: ReportAskPayload }
  /** Send the zipped part as ReportPart chunks of transfer `ask.id`; report `part.sent` or `part.failed`. */
  | { type: 'out.sendPart'; ask: ReportAskPayload; path: string; bytes: number; sha256: string }
  /** Stop collecting or sending transfer `id` and drop its file. */
  | { type: 'out.cancel'; id: number; why: string };

export type ReportPartParent = ActorRef<Snapshot<unknown>, ReportPartCommand>;

export interface ReportPartInput {
  parent: ReportPartParent;
}

export type ReportPartEvent =
  | { type: 'recv.ReportAsk'; payload: ReportAskPayload }
  /** The part is zipped to `path` (at most ask.maxBytes). */
  | { type: 'part.zipped'; path: string; bytes: number; sha256: string }
  /** Collecting or sending failed. */
  | { type: 'part.failed'; why: string }
  /** Every chunk was handed to the connection. */
  | { type: 'part.sent' }
  /** The connection to the host dropped. */
  | { type: 'conn.closed'; reason: string }
  /** The connection was resumed (a reconnect within the window). */
  | { type: 'conn.resumed' };

export type ReportPartEmitted = { type: 'reportPart.notice'; level: 'info' | 'warn'; msg: string; id: number; [k: string]: unknown };

export interface ReportPartContext {
  parent: ReportPartParent;
  /** The ask being worked on. */
  ask: ReportAskPayload | undefined;
  /** Transfer ids already handled (newest last, at most HANDLED_IDS_KEPT). */
  handled: number[];
}

type Ask = { payload: ReportAskPayload };

const askOf = (context: ReportPartContext): ReportAskPayload => context.ask!;

export const reportPartMachine = setup({
  types: {
    input: {} as ReportPartInput,
    context: {} as ReportPartContext,
    events: {} as ReportPartEvent,
    emitted: {} as ReportPartEmitted,
  },
  delays: {
    collectTimeout: REPORT_PARTS_TIMEOUT_MS,
    sendTimeout: REPORT_SEND_TIMEOUT_MS,
  },
  guards: {
    handledBefore: ({ context }, p: Ask) => context.handled.includes(p.payload.id) || context.ask?.id === p.payload.id,
  },
  actions: {
    take: assign(({ context }, p: Ask) => ({
      ask: p.payload,
      handled: [...context.handled, p.payload.id].slice(-HANDLED_IDS_KEPT),
    })),
    collect: enqueueActions(({ context, enqueue }) => {
      const ask = askOf(context);
      enqueue.sendTo(context.parent, { type: 'out.collect', ask });
      enqueue.emit({ type: 'reportPart.notice', level: 'info', msg: REPORT_PART_LOG.asked, id: ask.id, report: ask.report, by: ask.byName });
    }),
    ignore: enqueueActions(({ enqueue }, p: Ask) => {
      enqueue.emit({ type: 'reportPart.notice', level: 'info', msg: REPORT_PART_LOG.ignored, id: p.payload.id, report: p.payload.report });
    }),
    send: enqueueActions(({ context, enqueue }, p: { path: string; bytes: number; sha256: string }) => {
      const ask = askOf(context);
      enqueue.sendTo(context.parent, { type: 'out.sendPart', ask, ...p });
      enqueue.emit({ type: 'reportPart.notice', level: 'info', msg: REPORT_PART_LOG.sending, id: ask.id, bytes: p.bytes });
    }),
    noteSent: enqueueActions(({ context, enqueue }) => {
      enqueue.emit({ type: 'reportPart.notice', level: 'info', msg: REPORT_PART_LOG.sent, id: askOf(context).id });
    }),
    abandon: enqueueActions(({ context, enqueue }, p: { why: string }) => {
      const id = askOf(context).id;
      enqueue.sendTo(context.parent, { type: 'out.cancel', id, why: p.why });
      enqueue.emit({ type: 'reportPart.notice', level: 'warn', msg: REPORT_PART_LOG.abandoned, id, why: p.why });
    }),
    /** A failure the collector or sender already stopped on: nothing to cancel, only the log line. */
    noteFailed: enqueueActions(({ context, enqueue }, p: { why: string }) => {
      enqueue.emit({ type: 'reportPart.notice', level: 'warn', msg: REPORT_PART_LOG.abandoned, id: askOf(context).id, why: p.why });
    }),
    forget: assign({ ask: undefined }),
  },
}).createMachine({
  id: 'reportPart',
  context: ({ input }) => ({ parent: input.parent, ask: undefined, handled: [] }),
  initial: 'Idle',
  states: {
    Idle: {
      description: 'Idle: no part is being made; waits for the host\'s ReportAsk (an id handled before is ignored).',
      on: {
        'recv.ReportAsk': [
          { guard: { type: 'handledBefore', params: ({ event }) => event }, actions: { type: 'ignore', params: ({ event }) => event } },
          { target: 'Collecting', actions: [{ type: 'take', params: ({ event }) => event }, 'collect'] },
        ],
      },
    },
    Collecting: {
      description:
        'Collecting: waits for this launcher\'s collector to zip launcher.log, the game\'s logs and the trace within ' +
        'context.ask.maxBytes (`part.zipped`), at most 60 s (`collectTimeout`: the host stops waiting then). The ' +
        'connection to the host dropping or resuming abandons the part (never resent after a resume).',
      after: { collectTimeout: { target: 'Idle', actions: [{ type: 'abandon', params: { why: 'not collected within 60 s' } }, 'forget'] } },
      on: {
        'recv.ReportAsk': [
          { guard: { type: 'handledBefore', params: ({ event }) => event }, actions: { type: 'ignore', params: ({ event }) => event } },
          {
            target: 'Collecting',
            reenter: true,
            actions: [{ type: 'abandon', params: ({ event }) => ({ why: `replaced by transfer ${event.payload.id}` }) }, { type: 'take', params: ({ event }) => event }, 'collect'],
          },
        ],
        'part.zipped': { target: 'Sending', actions: { type: 'send', params: ({ event }) => ({ path: event.path, bytes: event.bytes, sha256: event.sha256 }) } },
        'part.failed': { target: 'Idle', actions: [{ type: 'noteFailed', params: ({ event }) => ({ why: event.why }) }, 'forget'] },
        'conn.closed': { target: 'Idle', actions: [{ type: 'abandon', params: ({ event }) => ({ why: `connection lost (${event.reason})` }) }, 'forget'] },
        'conn.resumed': { target: 'Idle', actions: [{ type: 'abandon', params: { why: 'resumed: a part is never resent after a resume' } }, 'forget'] },
      },
    },
    Sending: {
      description:
        'Sending: the part goes to the host as ReportPart chunks of transfer context.ask.id; waits for the sender to ' +
        'hand the last chunk to the host\'s connection (`part.sent`), at most 600 s (`sendTimeout`). The connection ' +
        'dropping or resuming abandons it: a part is never resent after a resume.',
      after: { sendTimeout: { target: 'Idle', actions: [{ type: 'abandon', params: { why: 'not sent within 600 s' } }, 'forget'] } },
      on: {
        'recv.ReportAsk': [
          { guard: { type: 'handledBefore', params: ({ event }) => event }, actions: { type: 'ignore', params: ({ event }) => event } },
          {
            target: 'Collecting',
            actions: [{ type: 'abandon', params: ({ event }) => ({ why: `replaced by transfer ${event.payload.id}` }) }, { type: 'take', params: ({ event }) => event }, 'collect'],
          },
        ],
        'part.sent': { target: 'Idle', actions: ['noteSent', 'forget'] },
        'part.failed': { target: 'Idle', actions: [{ type: 'noteFailed', params: ({ event }) => ({ why: event.why }) }, 'forget'] },
        'conn.closed': { target: 'Idle', actions: [{ type: 'abandon', params: ({ event }) => ({ why: `connection lost (${event.reason})` }) }, 'forget'] },
        'conn.resumed': { target: 'Idle', actions: [{ type: 'abandon', params: { why: 'resumed: a part is never resent after a resume' } }, 'forget'] },
      },
    },
  },
});
