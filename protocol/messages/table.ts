// The payload type and schema of every kind (spec: "Who may send what"): one row per kind, checked by the
// compiler against Kind, so no kind can be left without a schema.

import type { KindName } from './kinds.ts';
import type { Schema } from './schema.ts';
import * as actions from './payloads/actions.ts';
import * as checksum from './payloads/checksum.ts';
import * as handshake from './payloads/handshake.ts';
import * as lockstep from './payloads/lockstep.ts';
import * as reports from './payloads/reports.ts';
import * as session from './payloads/session.ts';

/** The payload type of each kind. */
export interface Payloads {
  Challenge: handshake.ChallengePayload;
  Join: handshake.JoinPayload;
  Reject: handshake.RejectPayload;
  Welcome: session.WelcomePayload;
  Session: session.SessionPayload;
  PeerClock: lockstep.PeerClockPayload;
  PlayerJoined: session.PlayerJoinedPayload;
  PlayerLeft: session.PlayerLeftPayload;
  ChecksumRequest: checksum.ChecksumRequestPayload;
  Authority: checksum.AuthorityPayload;
  ResyncSave: checksum.ResyncSavePayload;
  ResyncChunk: checksum.ResyncChunkPayload;
  ResyncLoad: checksum.ResyncLoadPayload;
  Permissions: session.PermissionsPayload;
  Ping: session.PingPayload;
  Kicked: handshake.KickedPayload;
  ReportAsk: reports.ReportAskPayload;
  ReportBundle: reports.ReportBundlePayload;
  ReportBusy: reports.ReportBusyPayload;
  Hello: lockstep.HelloPayload;
  Clock: lockstep.ClockPayload;
  SpeedRequest: lockstep.SpeedRequestPayload;
  ChecksumReport: checksum.ChecksumReportPayload;
  SaveDone: checksum.SaveDonePayload;
  ReplayFailed: checksum.ReplayFailedPayload;
  ActionRefused: actions.ActionRefusedPayload;
  Pong: session.PongPayload;
  Leave: session.LeavePayload;
  ResyncUpload: checksum.ResyncUploadPayload;
  ReportRequest: reports.ReportRequestPayload;
  ReportPart: reports.ReportPartPayload;
  Action: actions.ActionPayload;
  Chat: actions.ChatPayload;
  BuildVeto: actions.BuildVetoPayload;
  BuildCommit: actions.BuildCommitPayload;
}

/** The schema of each kind; the shapes the spec gives "by reference" share one schema. */
export const SCHEMAS: { readonly [K in KindName]: Schema<Payloads[K]> } = {
  Challenge: handshake.challengeSchema,
  Join: handshake.joinSchema,
  Reject: handshake.rejectSchema,
  Welcome: session.welcomeSchema,
  Session: session.sessionSchema,
  PeerClock: lockstep.peerClockSchema,
  PlayerJoined: session.playerJoinedSchema,
  PlayerLeft: session.playerLeftSchema,
  ChecksumRequest: checksum.checksumRequestSchema,
  Authority: checksum.authoritySchema,
  ResyncSave: checksum.resyncSaveSchema,
  ResyncChunk: checksum.resyncChunkSchema,
  ResyncLoad: checksum.resyncLoadSchema,
  Permissions: session.permissionsSchema,
  Ping: session.pingSchema,
  Kicked: handshake.rejectSchema,
  ReportAsk: reports.reportAskSchema,
  ReportBundle: reports.reportBundleSchema,
  ReportBusy: reports.reportBusySchema,
  Hello: lockstep.helloSchema,
  Clock: lockstep.clockSchema,
  SpeedRequest: lockstep.speedRequestSchema,
  ChecksumReport: checksum.checksumReportSchema,
  SaveDone: checksum.saveDoneSchema,
  ReplayFailed: checksum.replayFailedSchema,
  ActionRefused: actions.actionRefusedSchema,
  Pong: session.pongSchema,
  Leave: session.leaveSchema,
  ResyncUpload: checksum.resyncChunkSchema,
  ReportRequest: reports.reportRequestSchema,
  ReportPart: reports.reportPartSchema,
  Action: actions.actionSchema,
  Chat: actions.chatSchema,
  BuildVeto: actions.buildVetoSchema,
  BuildCommit: actions.buildCommitSchema,
};

/**
 * The fields that are dropped, not refused, when they do not validate, as paths from the payload's root
 * (`session.resync` is Welcome's session's resync): the logs-only and host-normalised ones (`hop` and each of its
 * stamps, `Action.category`, `ActionRefused.class`, `Hello.save`) and the optional ones the spec names without
 * giving their shape (docs/DECISIONS.md "Messages: what is dropped instead of refused"). Every other field refuses
 * its whole message. A sender of ours never relies on this: tests check that nothing we send loses one of them.
 */
export const LENIENT_FIELDS: { readonly [K in KindName]?: readonly string[] } = {
  Join: ['caps'],
  Reject: ['mods'],
  Kicked: ['mods'],
  Welcome: ['resumed', 'modsChecked', 'session.resync', 'session.modWarnings'],
  Session: ['resync', 'modWarnings'],
  PeerClock: ['hop', ...hopKeys('hop')],
  Clock: ['hop', ...hopKeys('hop')],
  Action: ['category', 'applied', 'hop', ...hopKeys('hop')],
  ActionRefused: ['class'],
  Hello: ['save'],
  BuildVeto: ['host'],
  ReportRequest: ['note'],
};

function hopKeys(at: string): string[] {
  return ['g', 'l', 'h', 'so', 'sr', 'w', 'ro', 'rr'].map((k) => `${at}.${k}`);
}
