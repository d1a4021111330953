// The message kinds and who may send them (spec: wire-protocol.txt, "Who may send what" and "Handshake").
// Codes 1–3 are the unsealed handshake; a player may send 30–41 and 50–53; everything else comes from the host.

/** Every message kind with its one-byte code (the frame's `kind`). */
export const Kind = {
  Challenge: 1,
  Join: 2,
  Reject: 3,
  Welcome: 10,
  Session: 11,
  PeerClock: 12,
  PlayerJoined: 13,
  PlayerLeft: 14,
  ChecksumRequest: 15,
  Authority: 16,
  ResyncSave: 17,
  ResyncChunk: 18,
  ResyncLoad: 19,
  Permissions: 20,
  Ping: 21,
  Kicked: 22,
  ReportAsk: 23,
  ReportBundle: 24,
  ReportBusy: 25,
  Hello: 30,
  Clock: 31,
  SpeedRequest: 32,
  ChecksumReport: 33,
  SaveDone: 34,
  ReplayFailed: 35,
  ActionRefused: 36,
  Pong: 37,
  Leave: 38,
  ResyncUpload: 39,
  ReportRequest: 40,
  ReportPart: 41,
  Action: 50,
  Chat: 51,
  BuildVeto: 52,
  BuildCommit: 53,
} as const;

export type KindName = keyof typeof Kind;
export type KindCode = (typeof Kind)[KindName];

/** Every kind name, in code order. */
export const KIND_NAMES = Object.keys(Kind) as readonly KindName[];

const NAME_BY_CODE = new Map<number, KindName>(KIND_NAMES.map((name) => [Kind[name], name]));

/** The kind's name for a code, or `undefined` for a code no kind has. */
export function kindName(code: number): KindName | undefined {
  return NAME_BY_CODE.get(code);
}

/** Whether `name` is a kind's name (an own key of Kind: "constructor" or "__proto__" are not). */
export function isKindName(name: unknown): name is KindName {
  return typeof name === 'string' && Object.hasOwn(Kind, name);
}

/** The three handshake kinds travel unsealed. */
const UNSEALED = new Set<number>([Kind.Challenge, Kind.Join, Kind.Reject]);

/**
 * Whether a frame of this kind is sealed: every code but Challenge 1, Join 2 and Reject 3. An unknown code counts
 * as sealed, so a frame of it must pass the tag check before anything looks at it.
 */
export function isSealedKind(code: number): boolean {
  return !UNSEALED.has(code);
}

/** Whether a player may send this kind: 30 to 41 and 50 to 53 (anything else from a player is dropped). */
export function playerMaySend(code: number): boolean {
  return Number.isInteger(code) && ((code >= 30 && code <= 41) || (code >= 50 && code <= 53));
}

/**
 * Whether a player's GAME may send this kind through the file link: the game kinds 30 to 36 and 50 to 53. Pong 37
 * and Leave 38 belong to the player's session layer, 39 to 41 to its launcher (spec "Who may send what"); a game
 * line of any other kind is refused like a player's frame of a kind it may not send.
 */
export function gameMaySend(code: number): boolean {
  return Number.isInteger(code) && ((code >= 30 && code <= 36) || (code >= 50 && code <= 53));
}

/** Who sends a kind to whom, as the spec's table says it. */
export const DIRECTION: { readonly [K in KindName]: string } = {
  Challenge: 'host → connection',
  Join: 'connection → host',
  Reject: 'host → connection',
  Welcome: 'host → player',
  Session: 'host → all',
  PeerClock: 'host → all but origin',
  PlayerJoined: 'host → all but the joiner',
  PlayerLeft: 'host → all',
  ChecksumRequest: 'host → all',
  Authority: 'host → players',
  ResyncSave: 'host → its own game (or the repair source player)',
  ResyncChunk: 'host → players',
  ResyncLoad: 'host → all',
  Permissions: 'host → all',
  Ping: 'host → player',
  Kicked: 'host → player',
  ReportAsk: 'host → players',
  ReportBundle: 'host → the player who asked',
  ReportBusy: 'host → the player who asked',
  Hello: 'game → host',
  Clock: 'game → host',
  SpeedRequest: 'game → host',
  ChecksumReport: 'game → host',
  SaveDone: 'the saving game → host',
  ReplayFailed: 'game → host',
  ActionRefused: 'game → host',
  Pong: 'player → host',
  Leave: 'player → host',
  ResyncUpload: "player's launcher → host",
  ReportRequest: "player's launcher → host",
  ReportPart: "player's launcher → host",
  Action: 'game → host → all but origin (a pause action: all)',
  Chat: 'game → host → all but origin',
  BuildVeto: 'game → host → all but origin',
  BuildCommit: 'game → host → all but origin',
};
