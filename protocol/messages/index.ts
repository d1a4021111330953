// The message layer's entry: kinds, who may send what, payload types and schemas, and the JSON codec
// (spec: wire-protocol.txt "Who may send what", "Handshake", "Frame"). Import from here.

export { Kind, KIND_NAMES, DIRECTION, kindName, isKindName, isSealedKind, playerMaySend, gameMaySend } from './kinds.ts';
export type { KindName, KindCode } from './kinds.ts';
export { LIMITS } from './limits.ts';
export type { DecodeResult, JsonValue, Schema } from './schema.ts';
export { SCHEMAS } from './table.ts';
export type { Payloads } from './table.ts';
export { decodePayload, validatePayload, encodePayload, payloadFromJson, payloadToJson } from './codec.ts';
export { payloadByteLength, fitsFrame } from './size.ts';
export type { ChunkPayload, Hop, Speed } from './payloads/common.ts';
export { REJECT_REASONS, KICK_REASONS } from './payloads/handshake.ts';
export type {
  ChallengePayload,
  JoinPayload,
  RejectPayload,
  KickedPayload,
  RejectReason,
  KickReason,
  ModEntry,
  ModDiff,
  ModVersionDiff,
} from './payloads/handshake.ts';
export { RESYNC_STATES } from './payloads/session.ts';
export type {
  PlayerSet,
  RosterEntry,
  ResyncState,
  ModWarning,
  SessionPayload,
  WelcomePayload,
  PlayerJoinedPayload,
  PlayerLeftPayload,
  PermissionsPayload,
  PingPayload,
  PongPayload,
  LeavePayload,
} from './payloads/session.ts';
export type { HelloPayload, ClockPayload, PeerClockPayload, SpeedRequestPayload } from './payloads/lockstep.ts';
export type {
  ChecksumRequestPayload,
  AuthorityPayload,
  ResyncSavePayload,
  ResyncChunkPayload,
  ResyncUploadPayload,
  ResyncLoadPayload,
  ChecksumCost,
  ChecksumReportPayload,
  SaveDonePayload,
  ReplayFailedPayload,
} from './payloads/checksum.ts';
export type {
  ReportAskPayload,
  ReportBundlePayload,
  ReportBusyPayload,
  ReportRequestPayload,
  ReportPartPayload,
} from './payloads/reports.ts';
export { ACTION_CATEGORIES, VERDICT_CLASSES, CHAT_LEVELS } from './payloads/actions.ts';
export type {
  ActionCategory,
  VerdictClass,
  ChatLevel,
  ActionPayload,
  ChatPayload,
  BuildVetoPayload,
  BuildCommitPayload,
  ActionRefusedPayload,
} from './payloads/actions.ts';
export { CHUNK_KINDS, encodeChunkPayload, decodeChunkPayload } from './chunkCodec.ts';
export type { ChunkKind } from './chunkCodec.ts';
