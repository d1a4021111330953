// The file side of a bug report over a launcher's session folder, for the actors that wire the report charts
// (actors/host/report.ts HostReportIo, actors/player/reportPart.ts PlayerReportIo): the round's zip
// (bundleWriter.ts at feverlink3-report-<n>.zip), a launcher's own part (collectPart.ts with the OS user name and the
// machine's host name as names to hide), chunked transfers in (chunkFileReceiver.ts) and out (chunkFileSender.ts
// through Node's base64). Every file it makes starts with `feverlink3-report` or a dot, so no part ever holds one.
import { rm } from 'node:fs/promises';
import { hostname, userInfo } from 'node:os';
import { join } from 'node:path';
import type { HostReportIo } from '../../actors/host/report.ts';
import type { PlayerReportIo } from '../../actors/player/reportPart.ts';
import type { Clock, LogFn } from '../../actors/ports.ts';
import type { ReportAskPayload } from '../../protocol/messages/index.ts';
import { nodeBase64 } from '../base64/nodeBase64.ts';
import { BundleWriter } from './bundleWriter.ts';
import { ChunkFileReceiver } from './chunkFileReceiver.ts';
import { sendFileChunks } from './chunkFileSender.ts';
import { collectPart } from './collectPart.ts';

/** The zip of report `n` in a session folder. */
export const reportZipName = (report: number): string => `feverlink3-report-${report}.zip`;

/** The names this machine would be named by in its logs: the OS user name and the host name (when known). */
export function machineNames(): string[] {
  const names: string[] = [];
  try {
    names.push(userInfo().username);
  } catch {
    // no user name on this system (a container without a passwd entry)
  }
  names.push(hostname());
  return names.filter((n) => n.length > 0);
}

export interface ReportIoOptions {
  /** The session folder: the part's files come from it, every report file goes into it. */
  dir: string;
  clock: Clock;
  log: LogFn;
  /** Names to pseudonymise besides home paths (default: machineNames()). */
  names?: readonly string[];
  /** The chunk sender's wait while the connection's queue is full (ms on `clock`). */
  pollMs?: number;
}

function common(o: ReportIoOptions) {
  const names = o.names ?? machineNames();
  return {
    collect: async (ask: ReportAskPayload) => {
      const outPath = join(o.dir, `feverlink3-report-${ask.report}-part-${ask.id}.zip`);
      const part = await collectPart({ sessionDir: o.dir, outPath, maxBytes: ask.maxBytes, salt: ask.salt, names });
      return { path: part.path, bytes: part.bytes, sha256: part.sha256 };
    },
    inbox: (what: string, handlers: { complete(f: { id: number; from: number; path: string }): void; failed(f: { id: number; from: number; why: string }): void }) =>
      new ChunkFileReceiver({ dir: o.dir, what, log: o.log, clock: o.clock, onComplete: (f) => handlers.complete(f), onFailed: (f) => handlers.failed(f) }),
    sendFile: async (s: Parameters<HostReportIo['sendFile']>[0]) => {
      const sent = await sendFileChunks({ ...s, base64: nodeBase64, clock: o.clock, ...(o.pollMs === undefined ? {} : { pollMs: o.pollMs }) });
      return sent.ok ? { ok: true as const } : { ok: false as const, why: sent.why };
    },
    remove: (path: string) => rm(path, { force: true }),
  };
}

/** The host's: zips in the session folder, parts received beside them. */
export function hostReportIo(o: ReportIoOptions): HostReportIo {
  const c = common(o);
  return {
    openZip: (report) => BundleWriter.create(join(o.dir, reportZipName(report))),
    collectOwnPart: async (ask) => ({ path: (await c.collect(ask)).path }),
    inbox: (handlers) => c.inbox('report part', handlers),
    sendFile: c.sendFile,
    remove: c.remove,
  };
}

/** A player's: its part collected from its session folder, the bundle it asked for received into it. */
export function playerReportIo(o: ReportIoOptions): PlayerReportIo {
  const c = common(o);
  return {
    collectPart: c.collect,
    inbox: (handlers) => c.inbox('report bundle', handlers),
    sendFile: c.sendFile,
    remove: c.remove,
  };
}
