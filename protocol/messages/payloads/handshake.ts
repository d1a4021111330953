// Handshake payloads: Challenge 1, Join 2, Reject 3, and Kicked 22 ("the shape of Reject")
// (spec: wire-protocol.txt "Handshake", "Reconnect", "Mod list"; lockstep.md "Mod list", "Leave and removal").

import { LIMITS } from '../limits.ts';
import { arr, bytes, lenient, obj, opt, str, uint } from '../schema.ts';
import type { Schema } from '../schema.ts';
import { counter, detail, identifier, joinerId, joinName, version } from './common.ts';

/** The reasons a host rejects a connection with (spec: "Reject reasons"). */
export const REJECT_REASONS = ['bad-proof', 'version', 'mods', 'full', 'malformed', 'flood', 'timeout'] as const;
export type RejectReason = (typeof REJECT_REASONS)[number];
/** The reasons a host ends a joined player's session with Kicked (lockstep.md "Leave and removal", spec "Limits"). */
export const KICK_REASONS = ['kicked', 'flood', 'malformed', 'timeout'] as const;
export type KickReason = (typeof KICK_REASONS)[number];

/** Challenge 1, host → connection, unsealed. */
export interface ChallengePayload {
  /** 16 random bytes. */
  nonce: Uint8Array;
  /** The protocol number (1); a player answers only its own. */
  protocol: number;
  /** The host's FeverLink3 version ("0.1"). */
  version: string;
}

/** One mod of a game: Join.mods is a list of these (lockstep.md "Mod list"). */
export interface ModEntry {
  id: string;
  version: string;
}

/** Join 2, connection → host, unsealed. */
export interface JoinPayload {
  /** 1..32 code points, no control characters, not blank; the proof covers its UTF-8 bytes. */
  name: string;
  version: string;
  /** HMAC-SHA256(key, nonce ‖ UTF8(name)), 32 bytes. */
  proof: Uint8Array;
  /** From a player coming back (spec: "Reconnect"). */
  resume?: {
    id: number;
    /** 32 bytes. */
    mac: Uint8Array;
    /** The counter of the last host frame the player read (spec: "Catching up"). */
    last?: number;
  };
  /** Capabilities, e.g. "resync-source-1" (spec: "Repair source"). */
  caps?: string[];
  mods?: ModEntry[];
}

/** A mod whose version differs between the host and the joiner. */
export interface ModVersionDiff {
  id: string;
  /** The host's version. */
  host: string;
  /** The joiner's version. */
  player: string;
}

/** Reject.mods: how the joiner's mod list differs from the host's (lockstep.md "Mod list"). */
export interface ModDiff {
  /** The host runs them, the joiner does not (the host's entries). */
  missing: ModEntry[];
  /** The joiner runs them, the host does not (the joiner's entries). */
  extra: ModEntry[];
  /** Both run them, in other versions. */
  differ: ModVersionDiff[];
}

/**
 * Reject 3 (host → connection, unsealed) and Kicked 22 (host → player, sealed). `reason` is a lower-case token:
 * one of REJECT_REASONS for Reject, of KICK_REASONS for Kicked; another token is accepted (a newer host), so the
 * receiver still honours the message.
 */
export interface RejectPayload {
  reason: RejectReason | KickReason | (string & {});
  detail?: string;
  mods?: ModDiff;
}

/** Kicked 22: the shape of Reject. */
export type KickedPayload = RejectPayload;

const modEntry = (): Schema<ModEntry> => obj({ id: identifier(), version: version() });
const modList = (): Schema<ModEntry[]> => arr(modEntry(), { max: LIMITS.maxMods });

export const challengeSchema: Schema<ChallengePayload> = obj({
  nonce: bytes({ min: LIMITS.nonceBytes, max: LIMITS.nonceBytes }),
  protocol: uint(),
  version: version(),
});

export const joinSchema: Schema<JoinPayload> = obj({
  name: joinName(),
  version: version(),
  proof: bytes({ min: LIMITS.macBytes, max: LIMITS.macBytes }),
  resume: opt(
    obj({
      id: joinerId(),
      mac: bytes({ min: LIMITS.macBytes, max: LIMITS.macBytes }),
      last: opt(counter()),
    }),
  ),
  // The spec names caps without a shape (our list of capability names): an odd one is dropped, not the Join.
  caps: lenient(arr(identifier(), { max: LIMITS.maxCaps })),
  mods: opt(modList()),
});

export const rejectSchema: Schema<RejectPayload> = obj({
  reason: str({
    min: 1,
    max: LIMITS.reasonChars,
    pattern: /^[a-z0-9][a-z0-9-]*$/,
    patternReason: 'not a reason token (lower-case letters, digits, dashes)',
  }),
  detail: opt(detail()),
  // The spec names Reject.mods without a shape (ours: docs/DECISIONS.md "Message shapes the spec leaves open"):
  // another host's may differ, and a Reject must still be honoured, so an odd one is dropped, not the Reject.
  mods: lenient(
    obj({
      missing: modList(),
      extra: modList(),
      differ: arr(obj({ id: identifier(), host: version(), player: version() }), { max: LIMITS.maxMods }),
    }),
  ),
});
