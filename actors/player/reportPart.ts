// A player's side of a bug report (spec wire-protocol.txt ReportAsk 23, ReportBundle 24, ReportBusy 25, ReportRequest
// 40, ReportPart 41, "Bug reports"; issue 14): runs the part chart (machines/reportPart.ts, systemId `reportPart`)
// beside the PlayerSession. A ReportAsk from the host goes to the chart; its commands are carried out through the
// injected file port (`PlayerReportIo`, adapters/report/reportIo.ts): this launcher's part collected from its session
// folder (pseudonymised with the ask's salt and this machine's names) and sent as ReportPart chunks. As the asker
// (`request`, the terminal's `/report [note]`) it receives the finished zip as ReportBundle chunks into its session
// folder and tells the window its path; a ReportBusy is told as it is. The connection ending abandons the part.
// A bad bundle chunk is refused and logged; a bad bundle is told as failed: nothing the host sends ends the launcher.
import { createActor, fromCallback, type Actor, type AnyActorRef, type InspectionEvent } from 'xstate';
import { reportPartMachine, type ReportPartCommand, type ReportPartEvent, type ReportPartParent } from '../../machines/reportPart.ts';
import { REPORT_PART_MAX_BYTES } from '../../machines/rules/reportRound.ts';
import type { ReportAskPayload } from '../../protocol/messages/index.ts';
import type { HostReportIo, PartInbox } from '../host/report.ts';
import type { Clock, LogFn } from '../ports.ts';
import { guarded, stackOf } from '../supervise.ts';
import type { PlayerSession } from './playerSession.ts';

/** The file side of a player's report: adapters/report/reportIo.ts playerReportIo over the session folder. */
export interface PlayerReportIo {
  /** This launcher's part zipped to a file of at most ask.maxBytes. */
  collectPart(ask: ReportAskPayload): Promise<{ path: string; bytes: number; sha256: string }>;
  /** The bundle receiver. */
  inbox: HostReportIo['inbox'];
  sendFile: HostReportIo['sendFile'];
  remove(path: string): Promise<void>;
}

export type PlayerReportNotice =
  | { type: 'received'; path: string; bytes: number }
  | { type: 'busy'; report: number; byName: string }
  | { type: 'failed'; why: string };

export interface PlayerReport {
  readonly actor: Actor<typeof reportPartMachine>;
  /** `/report [note]`: sends ReportRequest; false when not in a session. */
  request(note?: string): boolean;
  on(listener: (notice: PlayerReportNotice) => void): () => void;
  stop(): Promise<void>;
}

/**
 * ReportPart's pace: the host refuses more than 1 MiB a second from a player (the transport's `flood` limit,
 * docs/SECURITY.md), so a part goes at most this many payload bytes a second, with a burst of as much: an 8 MiB part
 * (~10.7 MiB of base64) takes ~28 s, inside the host's 60 s, and leaves room for the game's own lines.
 */
export const PART_BYTES_PER_SECOND = 384 * 1024;

/** A token bucket on the injected clock: `room()` while the bytes already sent are paid for, `spend(n)` per chunk. */
export function partPacer(clock: Clock, perSecond = PART_BYTES_PER_SECOND): { room(): boolean; spend(bytes: number): void } {
  let tokens = perSecond;
  let at = clock.now();
  const refill = () => {
    const now = clock.now();
    tokens = Math.min(perSecond, tokens + ((now - at) * perSecond) / 1000);
    at = now;
  };
  return {
    room: () => {
      refill();
      return tokens > 0;
    },
    spend: (bytes) => {
      refill();
      tokens -= bytes;
    },
  };
}

export function attachReportPart(
  player: PlayerSession,
  ports: { clock: Clock; log: LogFn; io: PlayerReportIo; inspect?: (event: InspectionEvent) => void },
  options: { queueBudget?: number; bytesPerSecond?: number } = {},
): PlayerReport {
  const { log, io } = ports;
  const inspect = ports.inspect && guarded(log, 'inspect', ports.inspect);
  const budget = options.queueBudget ?? 4 * 1024 * 1024;
  const listeners = new Set<(n: PlayerReportNotice) => void>();
  const notify = (n: PlayerReportNotice) => listeners.forEach((l) => guarded(log, 'report notice', l)(n));
  const cancelled = new Set<number>();
  let stopped = false;

  const send = (event: ReportPartEvent) => {
    if (!stopped && actor.getSnapshot().status === 'active') actor.send(event);
  };

  const collect = async (ask: ReportAskPayload) => {
    try {
      const part = await io.collectPart(ask);
      if (cancelled.has(ask.id) || stopped) return void (await io.remove(part.path));
      send({ type: 'part.zipped', path: part.path, bytes: part.bytes, sha256: part.sha256 });
    } catch (error) {
      if (!cancelled.has(ask.id)) send({ type: 'part.failed', why: `not collected: ${String(error)}` });
    }
  };

  const sendPart = async (c: Extract<ReportPartCommand, { type: 'out.sendPart' }>) => {
    const id = c.ask.id;
    const pace = partPacer(ports.clock, options.bytesPerSecond);
    try {
      const sent = await io.sendFile({
        id,
        path: c.path,
        bytes: c.bytes,
        sha256: c.sha256,
        write: (payload) => {
          pace.spend(payload.length);
          player.sendEncodedChunk('ReportPart', payload);
        },
        hasRoom: () => player.queuedBytes < budget && pace.room(),
        cancelled: () => stopped || cancelled.has(id),
      });
      if (!cancelled.has(id)) send(sent.ok ? { type: 'part.sent' } : { type: 'part.failed', why: `not sent: ${sent.why}` });
    } catch (error) {
      if (!cancelled.has(id)) send({ type: 'part.failed', why: `not sent: ${String(error)}` });
    } finally {
      await io.remove(c.path).catch(() => undefined);
    }
  };

  const command = (c: ReportPartCommand) => {
    if (c.type === 'out.collect') void collect(c.ask);
    else if (c.type === 'out.sendPart') void sendPart(c);
    else cancelled.add(c.id);
  };

  // The bundle this launcher asked for: the report number its own ReportAsk named, the transfer its first chunk opened.
  let awaiting = false;
  let ownReport: number | undefined;
  let bundle: number | undefined;
  const inbox: PartInbox = io.inbox({
    complete: (file) => {
      if (file.id !== bundle) return;
      bundle = undefined;
      awaiting = false;
      log({ msg: 'bug report: received', path: file.path });
      notify({ type: 'received', path: file.path, bytes: file.bytes ?? 0 });
    },
    failed: (f) => {
      if (f.id !== bundle) return;
      bundle = undefined;
      awaiting = false;
      notify({ type: 'failed', why: f.why });
    },
  });

  const parent = createActor(
    fromCallback<ReportPartCommand>(({ receive }) => {
      receive(guarded(log, 'report part command', command));
    }),
  ).start() as unknown as ReportPartParent & AnyActorRef;
  const actor = createActor(reportPartMachine, { clock: ports.clock, systemId: 'reportPart', input: { parent }, ...(inspect ? { inspect } : {}) });
  actor.on('reportPart.notice', guarded(log, 'report part notice', ({ type: _type, ...entry }) => log(entry)));
  actor.subscribe({ error: (err) => log({ msg: 'internal error', while: 'reportPart', stack: stackOf(err) }) });
  actor.start();

  const off = player.on(
    guarded(log, 'report', (n) => {
      if (n.type === 'ended' || n.type === 'away') return send({ type: 'conn.closed', reason: n.reason });
      if (n.type === 'resumed') return send({ type: 'conn.resumed' });
      if (n.type !== 'game') return;
      const { message } = n;
      if (message.kind === 'ReportAsk') {
        if (message.payload.by === player.you) ownReport = message.payload.report;
        send({ type: 'recv.ReportAsk', payload: message.payload });
      } else if (message.kind === 'ReportBusy') {
        awaiting = false;
        notify({ type: 'busy', report: message.payload.id, byName: message.payload.byName });
      } else if (message.kind === 'ReportBundle') {
        const chunk = message.payload;
        if (awaiting && bundle === undefined) {
          bundle = chunk.id;
          // Every game's part at most, and room for report.json.
          const maxBytes = (player.players().length + 1) * REPORT_PART_MAX_BYTES + 1024 * 1024;
          inbox.expect(chunk.id, { from: 0, maxBytes, fileName: `feverlink3-report-${ownReport ?? chunk.id}.zip` });
        }
        inbox.accept(0, chunk);
      }
    }),
  );

  return {
    actor,
    request: (note) => {
      if (!player.send('ReportRequest', note ? { note } : {})) return false;
      awaiting = true;
      if (bundle !== undefined) void inbox.cancel(bundle);
      bundle = undefined;
      return true;
    },
    on: (listener) => {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    stop: async () => {
      if (stopped) return;
      stopped = true;
      off();
      actor.stop();
      parent.stop();
      await inbox.close();
    },
  };
}
