// Field schemas the payloads share: player ids, game times, counters, names, chunks, latency stamps
// (spec: "Who may send what", "Resync round/Bounds", "Latency stamps"; lockstep.md "Units").

import { LIMITS } from '../limits.ts';
import { arr, bytes, clip, int, lenient, num, obj, oneOf, refine, sha256Hex, str, uint } from '../schema.ts';
import type { OptionalSchema, Schema } from '../schema.ts';
import type { Base64 } from '../../base64.ts';

/** A player id: 0 = the host's own game, 1..65534 a player. */
export const playerId = (): Schema<number> => int(0, LIMITS.maxPlayerId);
/** An id the host hands to a joiner: 1..65534. */
export const joinerId = (): Schema<number> => int(1, LIMITS.maxPlayerId);
/** Game time in game-milliseconds: a non-negative safe integer (may exceed 2^31). */
export const gameTime = (): Schema<number> => uint();
/** A counter (frame counters, round and transfer ids, seq numbers): a non-negative safe integer. */
export const counter = (): Schema<number> => uint();
/** Steps (Session.lead, the clock's ahead). */
export const steps = (): Schema<number> => uint(LIMITS.maxSteps);

/** The engine speed: 0 = standing still, 1, 2, 4. */
export type Speed = 0 | 1 | 2 | 4;
export const speed = (): Schema<Speed> => oneOf(0, 1, 2, 4);

/** A name a joiner chooses: 1..32 code points, no control characters, not blank. */
export const joinName = (): Schema<string> =>
  str({ min: 1, max: LIMITS.nameChars, noControl: true, pattern: /\S/u, patternReason: 'blank' });
/** A name the host sends (roster, from-names): as a join name, plus room for the "#id" of a clash. */
export const displayName = (): Schema<string> =>
  str({ min: 1, max: LIMITS.displayNameChars, noControl: true, pattern: /\S/u, patternReason: 'blank' });
/** A version string ("0.1"). */
export const version = (): Schema<string> => str({ min: 1, max: LIMITS.versionChars, noControl: true });
/** Free text for people (notes, why): any Unicode text within the bound, refused beyond it. */
export const text = (max: number): Schema<string> => str({ max });
/** A detail for logs and windows: Unicode text, cut at LIMITS.detailChars. */
export const detail = (): Schema<string> => clip(LIMITS.detailChars);
/** A mod id or capability name. */
export const identifier = (): Schema<string> => str({ min: 1, max: LIMITS.idChars, noControl: true });
/** A save name: no control characters, no path separators, not "." or "..". */
export const saveName = (): Schema<string> =>
  str({
    min: 1,
    max: LIMITS.saveNameChars,
    noControl: true,
    pattern: /^(?!\.\.?$)[^/\\]+$/u,
    patternReason: 'not a plain file name',
  });
/** A list of player ids. */
export const idList = (): Schema<number[]> => arr(playerId(), { max: LIMITS.maxPlayers });

/** One chunk of a transfer: the shape of ResyncChunk, shared by ResyncUpload, ReportBundle and ReportPart. */
export interface ChunkPayload {
  /** The transfer: the resync round's id, or the bug report's transfer id. */
  id: number;
  /** 0 ≤ index < count. */
  index: number;
  /** 1..2048 chunks in the transfer. */
  count: number;
  /** SHA-256 of the whole file, 64 hex digits (given back in lower case). */
  sha256: string;
  /** 1..262 144 bytes. */
  data: Uint8Array;
}

/** The chunk schema; `base64` as in `bytes` (the save path passes Node's, protocol/messages/chunkCodec.ts). */
export const chunk = (base64?: Base64): Schema<ChunkPayload> =>
  refine(
    obj({
      id: counter(),
      index: uint(LIMITS.maxChunks - 1),
      count: int(1, LIMITS.maxChunks),
      sha256: sha256Hex(),
      data: bytes({ min: 1, max: LIMITS.chunkBytes, ...(base64 ? { base64 } : {}) }),
    }),
    (v, path) => (v.index < v.count ? undefined : `${path}.index: not below count (${v.count})`),
  );

/**
 * Latency stamps, logs only (spec: "Latency stamps"): wall-clock ms since 1970 (g, l, h, w), clock offsets to
 * the host (so, ro) and round trips (sr, rr). Nothing decides anything from them, so a field that does not
 * validate is dropped rather than costing the whole message.
 */
export interface Hop {
  g?: number;
  l?: number;
  h?: number;
  so?: number;
  sr?: number;
  w?: number;
  ro?: number;
  rr?: number;
}

export const hop = (): Schema<Hop> =>
  obj({
    g: lenient(num()),
    l: lenient(num()),
    h: lenient(num()),
    so: lenient(num()),
    sr: lenient(num()),
    w: lenient(num()),
    ro: lenient(num()),
    rr: lenient(num()),
  });

/** `hop` as a field: dropped when it is not an object. */
export const hopField = (): OptionalSchema<Hop> => lenient(hop());
