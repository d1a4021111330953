// The host's bug-report round (spec wire-protocol.txt ReportAsk 23, ReportBundle 24, ReportBusy 25, ReportRequest 40,
// ReportPart 41, "Bug reports"; lockstep.md "Bug reports"; issue 14 item 1), systemId `report`, one per session:
// Idle → Collecting → Building → Sending → Idle.
//
// A ReportRequest asks every ready game (ReportAsk with a fresh transfer id per game, maxBytes 8 MiB, the session's
// random salt; the host's own game 0 too, whose part the host's launcher makes locally). Parts arrive whole and
// checked (the adapter's chunk receiver reports `part.received` or `part.refused`); a game leaving is counted missing
// with why; 60 s after the ask whatever is still awaited is listed missing, never waited for forever. Then the
// builder closes the zip (report.json last) and the bundle goes to the asker as ReportBundle chunks. A request while a
// round is made gets ReportBusy; the asker leaving abandons the round (nobody to send it to) and the zip is dropped.
//
// The chart decides; the session does the I/O: commands go to the parent ref of the input (`send.*`, `out.*`), log
// lines are emitted as `report.notice` with the log text as `msg`. Timing only from the named delays.
import { assign, emit, enqueueActions, setup } from 'xstate';
import type { ActorRef, Snapshot } from 'xstate';
import type { ReportAskPayload, ReportBusyPayload } from '../protocol/messages/index.ts';
import {
  awaited,
  MISSING_WHY,
  namesOf,
  openRound,
  partArrived,
  partMissing,
  REPORT_BUILD_TIMEOUT_MS,
  REPORT_PART_MAX_BYTES,
  REPORT_PARTS_TIMEOUT_MS,
  REPORT_SEND_TIMEOUT_MS,
  restMissing,
  type MissingPart,
  type ReportGame,
  type RoundBook,
} from './rules/reportRound.ts';

/** The log texts of the round (the `msg` of each `report.notice`). */
export const REPORT_LOG = {
  asked: 'bug report: asked',
  partReceived: 'bug report: part received',
  partMissing: 'bug report: part missing',
  busy: 'bug report: busy, request refused',
  built: 'bug report: zip built',
  sent: 'bug report: sent to the asker',
  abandoned: 'bug report: abandoned',
} as const;

/** What the round tells the session to do, in order. */
export type ReportCommand =
  /** Send ReportAsk to game `to` (game 0: the host's own launcher makes its part locally). */
  | { type: 'send.ReportAsk'; to: number; payload: ReportAskPayload }
  /** Send ReportBusy to `to`, who asked while report `payload.id` is being made. */
  | { type: 'send.ReportBusy'; to: number; payload: ReportBusyPayload }
  /** Close the zip: write report.json (these missing, and why) and report `bundle.ready` or `bundle.failed`. */
  | { type: 'out.build'; report: number; askedBy: ReportGame; note?: string; askedAt: number; asked: ReportGame[]; missing: MissingPart[] }
  /** Send the finished zip to `to` as ReportBundle chunks of transfer `transfer`; report `bundle.sent` or `bundle.failed`. */
  | { type: 'out.sendBundle'; report: number; to: number; transfer: number; path: string; bytes: number; sha256: string }
  /** Drop the round's zip and stop whatever of it is still running (parts being received, the bundle being sent). */
  | { type: 'out.discard'; report: number; why: string };

/** The session actor as the round sees it: where its commands go. */
export type ReportParent = ActorRef<Snapshot<unknown>, ReportCommand>;

export interface ReportInput {
  parent: ReportParent;
}

export type ReportEvent =
  /** A ReportRequest from `from` (game 0: the host's own /report); the ready games now, the salt and the wall clock. */
  | { type: 'recv.ReportRequest'; from: number; fromName: string; note?: string; games: ReportGame[]; salt: string; at: number }
  /** Game `from`'s part arrived whole, its sha256 checked, and is in the zip. */
  | { type: 'part.received'; from: number }
  /** Game `from`'s part was refused as a whole (sha256 mismatch, over its bound, not a zip…). */
  | { type: 'part.refused'; from: number; why: string }
  /** Game `id` left the session (released or away). */
  | { type: 'game.left'; id: number; reason: string }
  /** The zip is closed and hashed. */
  | { type: 'bundle.ready'; path: string; bytes: number; sha256: string }
  /** The zip could not be written or sent. */
  | { type: 'bundle.failed'; why: string }
  /** Every chunk of the bundle was handed to the asker's connection. */
  | { type: 'bundle.sent' };

export type ReportEmitted = { type: 'report.notice'; level: 'info' | 'warn'; msg: string; report: number; [k: string]: unknown };

interface Round {
  report: number;
  askedBy: ReportGame;
  note?: string;
  askedAt: number;
  salt: string;
  book: RoundBook;
  /** The bundle's transfer id (ReportBundle.id). */
  bundleTransfer: number;
}

export interface ReportContext {
  parent: ReportParent;
  /** The last report number given (1, 2, …). */
  lastReport: number;
  /** The last transfer id given (each asked game and each bundle takes the next). */
  lastTransfer: number;
  round: Round | undefined;
}

type Request = Extract<ReportEvent, { type: 'recv.ReportRequest' }>;

const roundOf = (context: ReportContext): Round => context.round!;

export const reportMachine = setup({
  types: {
    input: {} as ReportInput,
    context: {} as ReportContext,
    events: {} as ReportEvent,
    emitted: {} as ReportEmitted,
  },
  delays: {
    partsTimeout: REPORT_PARTS_TIMEOUT_MS,
    buildTimeout: REPORT_BUILD_TIMEOUT_MS,
    sendTimeout: REPORT_SEND_TIMEOUT_MS,
  },
  guards: {
    nothingAwaited: ({ context }) => awaited(roundOf(context).book).length === 0,
    isAsker: ({ context }, p: { id: number }) => roundOf(context).askedBy.id === p.id,
  },
  actions: {
    openRound: assign(({ context }, p: Request) => {
      const report = context.lastReport + 1;
      const book = openRound(p.games, context.lastTransfer + 1);
      const bundleTransfer = context.lastTransfer + book.asked.length + 1;
      const round: Round = {
        report,
        askedBy: { id: p.from, name: p.fromName },
        ...(p.note === undefined ? {} : { note: p.note }),
        askedAt: p.at,
        salt: p.salt,
        book,
        bundleTransfer,
      };
      return { lastReport: report, lastTransfer: bundleTransfer, round };
    }),
    sendAsks: enqueueActions(({ context, enqueue }) => {
      const r = roundOf(context);
      for (const g of r.book.asked) {
        const payload: ReportAskPayload = {
          id: g.transfer,
          report: r.report,
          by: r.askedBy.id,
          byName: r.askedBy.name,
          maxBytes: REPORT_PART_MAX_BYTES,
          salt: r.salt,
        };
        enqueue.sendTo(context.parent, { type: 'send.ReportAsk', to: g.id, payload });
      }
      enqueue.emit({ type: 'report.notice', level: 'info', msg: REPORT_LOG.asked, report: r.report, by: r.askedBy.name, games: namesOf(r.book.asked) });
    }),
    sendBusy: enqueueActions(({ context, enqueue }, p: { to: number; name: string }) => {
      const r = roundOf(context);
      enqueue.sendTo(context.parent, { type: 'send.ReportBusy', to: p.to, payload: { id: r.report, byName: r.askedBy.name } });
      enqueue.emit({ type: 'report.notice', level: 'info', msg: REPORT_LOG.busy, report: r.report, from: p.name, by: r.askedBy.name });
    }),
    notePart: enqueueActions(({ context, enqueue }, p: { from: number }) => {
      const r = roundOf(context);
      const game = awaited(r.book).find((g) => g.id === p.from);
      if (game === undefined) return;
      enqueue.assign({ round: { ...r, book: partArrived(r.book, p.from) } });
      enqueue.emit({ type: 'report.notice', level: 'info', msg: REPORT_LOG.partReceived, report: r.report, game: game.name });
    }),
    noteMissing: enqueueActions(({ context, enqueue }, p: { id: number; why: string }) => {
      const r = roundOf(context);
      const game = awaited(r.book).find((g) => g.id === p.id);
      if (game === undefined) return;
      enqueue.assign({ round: { ...r, book: partMissing(r.book, p.id, p.why) } });
      enqueue.emit({ type: 'report.notice', level: 'warn', msg: REPORT_LOG.partMissing, report: r.report, game: game.name, why: p.why });
    }),
    noteTimeout: enqueueActions(({ context, enqueue }) => {
      const r = roundOf(context);
      const late = awaited(r.book);
      enqueue.assign({ round: { ...r, book: restMissing(r.book, MISSING_WHY.timeout) } });
      enqueue.emit({ type: 'report.notice', level: 'warn', msg: REPORT_LOG.partMissing, report: r.report, game: namesOf(late), why: MISSING_WHY.timeout });
    }),
    build: enqueueActions(({ context, enqueue }) => {
      const r = roundOf(context);
      enqueue.sendTo(context.parent, {
        type: 'out.build',
        report: r.report,
        askedBy: r.askedBy,
        ...(r.note === undefined ? {} : { note: r.note }),
        askedAt: r.askedAt,
        asked: r.book.asked.map(({ id, name }) => ({ id, name })),
        missing: r.book.missing,
      });
    }),
    sendBundle: enqueueActions(({ context, enqueue }, p: { path: string; bytes: number; sha256: string }) => {
      const r = roundOf(context);
      enqueue.sendTo(context.parent, { type: 'out.sendBundle', report: r.report, to: r.askedBy.id, transfer: r.bundleTransfer, ...p });
      enqueue.emit({ type: 'report.notice', level: 'info', msg: REPORT_LOG.built, report: r.report, bytes: p.bytes, missing: r.book.missing.length });
    }),
    noteSent: emit(({ context }) => ({ type: 'report.notice' as const, level: 'info' as const, msg: REPORT_LOG.sent, report: roundOf(context).report, to: roundOf(context).askedBy.name })),
    abandon: enqueueActions(({ context, enqueue }, p: { why: string }) => {
      const r = roundOf(context);
      enqueue.sendTo(context.parent, { type: 'out.discard', report: r.report, why: p.why });
      enqueue.emit({ type: 'report.notice', level: 'warn', msg: REPORT_LOG.abandoned, report: r.report, why: p.why });
    }),
    closeRound: assign({ round: undefined }),
  },
}).createMachine({
  id: 'report',
  context: ({ input }) => ({ lastReport: 0, lastTransfer: 0, round: undefined, parent: input.parent }),
  initial: 'Idle',
  states: {
    Idle: {
      description: 'Idle: no report is being made; waits for a ReportRequest from any player (or the host).',
      on: {
        'recv.ReportRequest': { target: 'Collecting', actions: [{ type: 'openRound', params: ({ event }) => event }, 'sendAsks'] },
      },
    },
    Collecting: {
      description:
        'Collecting: waits for the part of every asked game still in context.round.book (not received, not missing) — ' +
        'each game\'s launcher sends it as ReportPart chunks — at most 60 s (`partsTimeout`) after the ask; then the ' +
        'games still awaited are listed missing. A game leaving is missing at once; the asker (context.round.askedBy) ' +
        'leaving abandons the report. Another request gets ReportBusy.',
      always: { guard: 'nothingAwaited', target: 'Building' },
      after: { partsTimeout: { target: 'Building', actions: 'noteTimeout' } },
      on: {
        'recv.ReportRequest': { actions: { type: 'sendBusy', params: ({ event }) => ({ to: event.from, name: event.fromName }) } },
        'part.received': { actions: { type: 'notePart', params: ({ event }) => ({ from: event.from }) } },
        'part.refused': { actions: { type: 'noteMissing', params: ({ event }) => ({ id: event.from, why: MISSING_WHY.refused(event.why) }) } },
        'game.left': [
          {
            guard: { type: 'isAsker', params: ({ event }) => ({ id: event.id }) },
            target: 'Idle',
            actions: [{ type: 'abandon', params: ({ event }) => ({ why: `the asker left (${event.reason})` }) }, 'closeRound'],
          },
          { actions: { type: 'noteMissing', params: ({ event }) => ({ id: event.id, why: MISSING_WHY.left(event.reason) }) } },
        ],
        'bundle.failed': { target: 'Idle', actions: [{ type: 'abandon', params: ({ event }) => ({ why: event.why }) }, 'closeRound'] },
      },
    },
    Building: {
      description:
        'Building: waits for the host\'s own zip writer to add report.json and close the zip (`bundle.ready`), at most ' +
        '120 s (`buildTimeout`); the asker (context.round.askedBy) leaving abandons it. Another request gets ReportBusy; ' +
        'late parts are ignored.',
      entry: 'build',
      after: { buildTimeout: { target: 'Idle', actions: [{ type: 'abandon', params: { why: 'the zip was not closed within 120 s' } }, 'closeRound'] } },
      on: {
        'recv.ReportRequest': { actions: { type: 'sendBusy', params: ({ event }) => ({ to: event.from, name: event.fromName }) } },
        'bundle.ready': { target: 'Sending', actions: { type: 'sendBundle', params: ({ event }) => ({ path: event.path, bytes: event.bytes, sha256: event.sha256 }) } },
        'bundle.failed': { target: 'Idle', actions: [{ type: 'abandon', params: ({ event }) => ({ why: event.why }) }, 'closeRound'] },
        'game.left': {
          guard: { type: 'isAsker', params: ({ event }) => ({ id: event.id }) },
          target: 'Idle',
          actions: [{ type: 'abandon', params: ({ event }) => ({ why: `the asker left (${event.reason})` }) }, 'closeRound'],
        },
      },
    },
    Sending: {
      description:
        'Sending: the bundle goes to the asker (context.round.askedBy) as ReportBundle chunks; waits for the sender to ' +
        'hand the last chunk to the asker\'s connection (`bundle.sent`), at most 600 s (`sendTimeout`); the asker ' +
        'leaving abandons it. Another request gets ReportBusy.',
      after: { sendTimeout: { target: 'Idle', actions: [{ type: 'abandon', params: { why: 'the bundle was not sent within 600 s' } }, 'closeRound'] } },
      on: {
        'recv.ReportRequest': { actions: { type: 'sendBusy', params: ({ event }) => ({ to: event.from, name: event.fromName }) } },
        'bundle.sent': { target: 'Idle', actions: ['noteSent', 'closeRound'] },
        'bundle.failed': { target: 'Idle', actions: [{ type: 'abandon', params: ({ event }) => ({ why: event.why }) }, 'closeRound'] },
        'game.left': {
          guard: { type: 'isAsker', params: ({ event }) => ({ id: event.id }) },
          target: 'Idle',
          actions: [{ type: 'abandon', params: ({ event }) => ({ why: `the asker left (${event.reason})` }) }, 'closeRound'],
        },
      },
    },
  },
});
