// Checksum and resync payloads: ChecksumRequest 15, Authority 16, ResyncSave 17, ResyncChunk 18, ResyncLoad 19,
// ChecksumReport 33, SaveDone 34, ReplayFailed 35, ResyncUpload 39 (spec: "Who may send what", "Resync round",
// "Bounds", "Spread full rounds", "Chunk size and detail", "The free-id queue part freeq").

import { LIMITS } from '../limits.ts';
import { arr, bool, int, num, obj, opt, rec, sha256Hex, str } from '../schema.ts';
import type { Schema } from '../schema.ts';
import { chunk, counter, detail, gameTime, identifier, saveName } from './common.ts';
import type { ChunkPayload } from './common.ts';

/** ChecksumRequest 15, host → all. */
export interface ChecksumRequestPayload {
  /** The round number. */
  n: number;
  /** The game time the round is hashed at. */
  at: number;
  paused: boolean;
  /** false = a light round; absent = full. */
  full?: boolean;
  /** A spread full round reads a chunk every `spread` steps (1..4); absent = hashed whole at `at`. */
  spread?: number;
  /** Entities a chunk reads (50..4000); absent = the game's 200. */
  chunk?: number;
  /** Keep the itemised keys in the game-script state for the dump at a repair. */
  detail?: boolean;
  /**
   * A paused round: the pauseSeq of the last pause action the host flushed before this request (0: none). Pause
   * actions apply while the world stands, so each game reads the round after the flushes up to it and before any
   * later one (docs/DECISIONS.md "A paused round reads the world at a pause-order position"). Absent: no position.
   */
  upto?: number;
}

/** Authority 16, host → players: the host's values (money) to correct to. */
export interface AuthorityPayload {
  n: number;
  values: Record<string, number>;
}

/** ResyncSave 17: save the world as `name` ("feverlink3-resync-<id>"). */
export interface ResyncSavePayload {
  id: number;
  name: string;
}

/** ResyncChunk 18, host → players. */
export type ResyncChunkPayload = ChunkPayload;
/** ResyncUpload 39, the repair source's launcher → host: the shape of ResyncChunk. */
export type ResyncUploadPayload = ChunkPayload;

/** ResyncLoad 19, host → all: load the save `name` whose SHA-256 is `sha256`. */
export interface ResyncLoadPayload {
  id: number;
  name: string;
  sha256: string;
}

/** A spread round's cost on the reporting game (spec: "Chunk size and detail"). */
export interface ChecksumCost {
  entityNs: number;
  stepMaxUs: number;
  chunk: number;
}

/** ChecksumReport 33, game → host. */
export interface ChecksumReportPayload {
  n: number;
  /** = at, plus the lateness of a chunk read after its step. */
  time: number;
  /** Part name → hash: a string (freeq is "<epoch>|<n>:<h>|…") or a number. */
  parts: Record<string, string | number>;
  authority?: Record<string, number>;
  /** Parts the game could not measure. */
  notReady?: string[];
  cost?: ChecksumCost;
}

/** SaveDone 34, the saving game → host. */
export interface SaveDonePayload {
  id: number;
  ok: boolean;
  detail?: string;
  /** Ids of the mods the saved world uses. */
  mods?: string[];
}

/** ReplayFailed 35, game → host. */
export interface ReplayFailedPayload {
  detail: string;
}

const partName = (key: string): string | undefined => {
  if (key.length === 0) return 'empty part name';
  if (key.length > LIMITS.partNameChars) return `part name longer than ${LIMITS.partNameChars} characters`;
  if (/[\u0000-\u001F\u007F-\u009F]|[\uD800-\uDFFF]/u.test(key)) return 'part name has a control character';
  return undefined;
};

const partValue = str({ max: LIMITS.partValueChars });
const partNumber = num();
/** A part's hash: a bounded string or a finite number. */
const hash = (): Schema<string | number> => ({
  check: (v, path) =>
    typeof v === 'number'
      ? partNumber.check(v, path)
      : typeof v === 'string'
        ? partValue.check(v, path)
        : { ok: false, reason: `${path}: expected a hash (a string or a number)` },
  toJson: (v) => v,
});

export const checksumRequestSchema: Schema<ChecksumRequestPayload> = obj({
  n: counter(),
  at: gameTime(),
  paused: bool(),
  full: opt(bool()),
  spread: opt(int(1, 4)),
  chunk: opt(int(50, 4000)),
  detail: opt(bool()),
  upto: opt(counter()),
});

export const authoritySchema: Schema<AuthorityPayload> = obj({
  n: counter(),
  values: rec(num(), { max: LIMITS.maxParts, key: partName }),
});

export const resyncSaveSchema: Schema<ResyncSavePayload> = obj({ id: counter(), name: saveName() });

export const resyncChunkSchema: Schema<ResyncChunkPayload> = chunk();

export const resyncLoadSchema: Schema<ResyncLoadPayload> = obj({
  id: counter(),
  name: saveName(),
  sha256: sha256Hex(),
});

export const checksumReportSchema: Schema<ChecksumReportPayload> = obj({
  n: counter(),
  time: gameTime(),
  parts: rec(hash(), { max: LIMITS.maxParts, key: partName }),
  authority: opt(rec(num(), { max: LIMITS.maxParts, key: partName })),
  notReady: opt(arr(str({ min: 1, max: LIMITS.partNameChars, noControl: true }), { max: LIMITS.maxParts })),
  cost: opt(obj({ entityNs: num(0), stepMaxUs: num(0), chunk: counter() })),
});

export const saveDoneSchema: Schema<SaveDonePayload> = obj({
  id: counter(),
  ok: bool(),
  detail: opt(detail()),
  mods: opt(arr(identifier(), { max: LIMITS.maxMods })),
});

export const replayFailedSchema: Schema<ReplayFailedPayload> = obj({ detail: detail() });
