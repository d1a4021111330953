// The host's bug-report actor (spec wire-protocol.txt ReportAsk 23, ReportBundle 24, ReportBusy 25, ReportRequest 40,
// ReportPart 41, "Bug reports"; issue 14): runs the round chart (machines/report.ts, systemId `report`) beside the
// HostSession, as the checksum actor does (actors/host/checksums.ts). It hands the chart the players' ReportRequest,
// the games that leave and what the I/O reports; it carries out the chart's commands through the injected file port
// (`HostReportIo`, adapters/report/hostReportIo.ts): one zip per round (feverlink3-report-<n>.zip in the session
// folder), each player's ReportPart chunks received into a checked file and copied into that zip, the host's own
// part (game 0) collected locally and copied straight in, the finished zip sent to the asker as ReportBundle chunks
// (the host itself, id 0, asks from its terminal: the zip is then only written and its path told).
// Nothing a peer sends ends anything but its own transfer: a bad chunk is refused (logged), a bad part is listed
// missing with why. Every I/O failure becomes a chart event; every callback is guarded.
import { createActor, fromCallback, type Actor, type AnyActorRef } from 'xstate';
import { reportMachine, type ReportCommand, type ReportEvent, type ReportParent } from '../../machines/report.ts';
import type { IncomingChunk } from '../../machines/rules/resyncChunks.ts';
import type { MissingPart, ReportGame } from '../../machines/rules/reportRound.ts';
import type { ReportAskPayload } from '../../protocol/messages/index.ts';
import type { Clock, LogFn } from '../ports.ts';
import { guarded, stackOf } from '../supervise.ts';
import type { HostSession } from './hostSession.ts';
import type { InspectionObserver } from './hostTypes.ts';

/** The round's one zip as the actor uses it (adapters/report/bundleWriter.ts). */
export interface ReportZip {
  readonly path: string;
  addPart(game: number, partPath: string, maxBytes: number): Promise<{ ok: true } | { ok: false; why: string }>;
  /** Writes report.json and closes the zip. */
  finish(index: {
    report: number;
    session: string;
    askedBy: ReportGame;
    note?: string;
    hostVersion: string;
    protocol: number;
    players: ReportGame[];
    askedAt: number;
    builtAt: number;
    missing: MissingPart[];
  }): Promise<{ path: string; bytes: number; sha256: string }>;
  abort(): Promise<void>;
}

/** The parts being received (adapters/report/chunkFileReceiver.ts). */
export interface PartInbox {
  expect(id: number, expected: { from: number; maxBytes: number; fileName: string }): void;
  accept(from: number, chunk: IncomingChunk): { outcome: string };
  cancel(id: number): Promise<void>;
  close(): Promise<void>;
}

export interface ReceivedPart {
  id: number;
  from: number;
  path: string;
  bytes?: number;
}

/** The file side of a bug report on the host: adapters/report/hostReportIo.ts over the session folder. */
export interface HostReportIo {
  /** Starts the round's zip: feverlink3-report-<report>.zip in the session folder. */
  openZip(report: number): Promise<ReportZip>;
  /** The host's own part (game 0) zipped from the session folder to a file of at most ask.maxBytes. */
  collectOwnPart(ask: ReportAskPayload): Promise<{ path: string }>;
  /** The part receiver; `complete` gets a whole checked file, `failed` a transfer refused whole. */
  inbox(handlers: { complete(file: ReceivedPart): void; failed(f: { id: number; from: number; why: string }): void }): PartInbox;
  /** Sends a file as chunk payloads to `write` (encoded); resolves once every chunk was handed over, or why not. */
  sendFile(o: {
    id: number;
    path: string;
    bytes: number;
    sha256: string;
    write(payload: Uint8Array): void;
    hasRoom(): boolean;
    cancelled(): boolean;
  }): Promise<{ ok: true } | { ok: false; why: string }>;
  remove(path: string): Promise<void>;
}

/** What the host's window is told. */
export type HostReportNotice =
  | { type: 'written'; report: number; path: string; bytes: number; missing: number }
  | { type: 'busy'; report: number; byName: string }
  | { type: 'abandoned'; report: number; why: string };

export interface HostReportOptions {
  /** The session's name in report.json. */
  session: string;
  hostVersion: string;
  protocol: number;
  /** Bytes a connection may hold queued before the next bundle chunk waits (default 4 MiB). */
  queueBudget?: number;
}

export interface HostReport {
  readonly actor: Actor<typeof reportMachine>;
  /** The host's own `/report [note]` (asker id 0). */
  request(note?: string): void;
  on(listener: (notice: HostReportNotice) => void): () => void;
  stop(): Promise<void>;
}

interface RoundIo {
  report: number;
  zip: Promise<ReportZip | undefined>;
  /** Transfer id → the game it was asked of. */
  transfers: Map<number, number>;
  maxBytes: number;
  cancelled: boolean;
  /** Parts listed missing when the zip was closed. */
  missing: number;
}

const partFileName = (report: number, transfer: number) => `feverlink3-report-${report}-part-${transfer}.zip`;

export function attachReport(
  host: HostSession,
  ports: { clock: Clock; log: LogFn; wallClock(): number; randomSalt(): string; io: HostReportIo; inspect?: InspectionObserver },
  options: HostReportOptions,
): HostReport {
  const { log, io } = ports;
  const inspect = ports.inspect && guarded(log, 'inspect', ports.inspect);
  const listeners = new Set<(n: HostReportNotice) => void>();
  const notify = (n: HostReportNotice) => listeners.forEach((l) => guarded(log, 'report notice', l)(n));
  let round: RoundIo | undefined;
  let stopped = false;

  const send = (event: ReportEvent) => {
    if (!stopped && actor.getSnapshot().status === 'active') actor.send(event);
  };
  const forRound = (r: RoundIo, event: ReportEvent) => {
    if (round === r && !r.cancelled) send(event);
  };

  /** The round is done: its zip stays (the host keeps a copy in its session folder); nothing of it is dropped. */
  const finished = (r: RoundIo, event: ReportEvent) => {
    if (round !== r || r.cancelled) return;
    round = undefined;
    send(event);
  };

  const inbox = io.inbox({
    complete: (file) => void addPart(file),
    failed: (f) => {
      const r = round;
      if (r && r.transfers.get(f.id) === f.from) forRound(r, { type: 'part.refused', from: f.from, why: f.why });
    },
  });

  const addPart = async (file: ReceivedPart) => {
    const r = round;
    try {
      if (!r || r.transfers.get(file.id) !== file.from) return;
      const zip = await r.zip;
      if (!zip) return;
      const added = await zip.addPart(file.from, file.path, r.maxBytes);
      if (added.ok) forRound(r, { type: 'part.received', from: file.from });
      else {
        log({ msg: 'report part refused', from: file.from, id: file.id, why: added.why });
        forRound(r, { type: 'part.refused', from: file.from, why: added.why });
      }
    } catch (error) {
      log({ msg: 'report part refused', from: file.from, id: file.id, why: `not added: ${String(error)}` });
      if (r) forRound(r, { type: 'part.refused', from: file.from, why: `not added: ${String(error)}` });
    } finally {
      await io.remove(file.path).catch(() => undefined);
    }
  };

  const openRound = (report: number, maxBytes: number): RoundIo => {
    const zip = io.openZip(report).catch((error: unknown) => {
      log({ msg: 'bug report: zip not opened', level: 'warn', report, error: String(error) });
      if (round?.report === report) forRound(round, { type: 'bundle.failed', why: `the zip could not be opened (${String(error)})` });
      return undefined;
    });
    return { report, zip, transfers: new Map(), maxBytes, cancelled: false, missing: 0 };
  };

  const askOwnGame = async (r: RoundIo, ask: ReportAskPayload) => {
    let path: string | undefined;
    try {
      path = (await io.collectOwnPart(ask)).path;
      const zip = await r.zip;
      if (!zip || round !== r || r.cancelled) return;
      const added = await zip.addPart(0, path, ask.maxBytes);
      forRound(r, added.ok ? { type: 'part.received', from: 0 } : { type: 'part.refused', from: 0, why: added.why });
    } catch (error) {
      log({ msg: 'bug report: own part not collected', level: 'warn', report: ask.report, error: String(error) });
      forRound(r, { type: 'part.refused', from: 0, why: `not collected: ${String(error)}` });
    } finally {
      if (path) await io.remove(path).catch(() => undefined);
    }
  };

  const build = async (r: RoundIo, c: Extract<ReportCommand, { type: 'out.build' }>) => {
    try {
      const zip = await r.zip;
      if (!zip) return;
      const versions = new Map(host.players().map((p) => [p.id, p.name]));
      const players = c.asked.map((g) => ({ id: g.id, name: versions.get(g.id) ?? g.name }));
      const done = await zip.finish({
        report: c.report,
        session: options.session,
        askedBy: c.askedBy,
        ...(c.note === undefined ? {} : { note: c.note }),
        hostVersion: options.hostVersion,
        protocol: options.protocol,
        players,
        askedAt: c.askedAt,
        builtAt: ports.wallClock(),
        missing: c.missing,
      });
      forRound(r, { type: 'bundle.ready', path: done.path, bytes: done.bytes, sha256: done.sha256 });
    } catch (error) {
      forRound(r, { type: 'bundle.failed', why: `the zip could not be closed (${String(error)})` });
    }
  };

  const sendBundle = async (r: RoundIo, c: Extract<ReportCommand, { type: 'out.sendBundle' }>) => {
    if (c.to === 0) {
      // The host asked: the zip stays where it was written, in the host's session folder.
      notify({ type: 'written', report: c.report, path: c.path, bytes: c.bytes, missing: r.missing });
      finished(r, { type: 'bundle.sent' });
      return;
    }
    const budget = options.queueBudget ?? 4 * 1024 * 1024;
    const conn = () => host.connectionOf(c.to);
    try {
      const sent = await io.sendFile({
        id: c.transfer,
        path: c.path,
        bytes: c.bytes,
        sha256: c.sha256,
        write: (payload) => conn()?.write(host.sealReportBundle(payload)),
        hasRoom: () => (conn()?.queuedBytes ?? 0) < budget,
        cancelled: () => r.cancelled || round !== r || conn() === undefined || conn()!.closeReason !== undefined,
      });
      if (sent.ok) finished(r, { type: 'bundle.sent' });
      else forRound(r, { type: 'bundle.failed', why: `the bundle was not sent (${sent.why})` });
    } catch (error) {
      forRound(r, { type: 'bundle.failed', why: `the bundle was not sent (${String(error)})` });
    }
  };

  const discard = async (r: RoundIo) => {
    r.cancelled = true;
    await Promise.all([...r.transfers.keys()].map((id) => inbox.cancel(id)));
    const zip = await r.zip;
    await zip?.abort().catch(() => undefined);
  };

  const command = (c: ReportCommand) => {
    switch (c.type) {
      case 'send.ReportAsk': {
        if (round?.report !== c.payload.report) round = openRound(c.payload.report, c.payload.maxBytes);
        const r = round;
        r.transfers.set(c.payload.id, c.to);
        if (c.to === 0) return void askOwnGame(r, c.payload);
        inbox.expect(c.payload.id, { from: c.to, maxBytes: c.payload.maxBytes, fileName: partFileName(c.payload.report, c.payload.id) });
        host.sendTo(c.to, 'ReportAsk', c.payload);
        return;
      }
      case 'send.ReportBusy':
        if (c.to === 0) notify({ type: 'busy', report: c.payload.id, byName: c.payload.byName });
        else host.sendTo(c.to, 'ReportBusy', c.payload);
        return;
      case 'out.build': {
        const r = round;
        if (!r || r.report !== c.report) return;
        r.missing = c.missing.length;
        // The parts still awaited are listed missing: their transfers end here.
        for (const [id, game] of r.transfers) if (c.missing.some((m) => m.id === game)) void inbox.cancel(id);
        return void build(r, c);
      }
      case 'out.sendBundle':
        if (round?.report === c.report) void sendBundle(round, c);
        return;
      case 'out.discard': {
        const r = round;
        if (!r || r.report !== c.report) return;
        round = undefined;
        notify({ type: 'abandoned', report: c.report, why: c.why });
        void discard(r);
        return;
      }
    }
  };

  // The chart's parent: commands arrive here, each guarded (a throw is logged, never passed to the chart).
  const parent = createActor(
    fromCallback<ReportCommand>(({ receive }) => {
      receive(guarded(log, 'report command', command));
    }),
  ).start() as unknown as ReportParent & AnyActorRef;
  const actor = createActor(reportMachine, { clock: ports.clock, systemId: 'report', input: { parent }, ...(inspect ? { inspect } : {}) });
  actor.on('report.notice', guarded(log, 'report notice', ({ type: _type, ...entry }) => log(entry)));
  actor.subscribe({
    // The chart ended with an error (our bug): logged; reports stop, the session goes on.
    error: (err) => log({ msg: 'internal error', while: 'report', stack: stackOf(err) }),
  });
  actor.start();

  const readyGames = (): ReportGame[] => host.players().filter((p) => !p.away).map((p) => ({ id: p.id, name: p.name }));
  const request = (from: number, note: string | undefined) => {
    const name = host.players().find((p) => p.id === from)?.name ?? `#${from}`;
    send({ type: 'recv.ReportRequest', from, fromName: name, ...(note ? { note } : {}), games: readyGames(), salt: ports.randomSalt(), at: ports.wallClock() });
  };

  const off = host.on(
    guarded(log, 'report', (n) => {
      if (n.type === 'left') {
        send({ type: 'game.left', id: n.id, reason: n.away ? 'away' : 'left' });
        return;
      }
      if (n.type !== 'game' || n.from === 0) return;
      const { message, from } = n;
      if (message.kind === 'ReportRequest') request(from, message.payload.note);
      else if (message.kind === 'ReportPart') inbox.accept(from, message.payload);
    }),
  );

  return {
    actor,
    request: (note) => request(0, note),
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
      const r = round;
      round = undefined;
      if (r) await discard(r);
      await inbox.close();
    },
  };
}
