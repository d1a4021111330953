// Action payloads: ActionRefused 36, Action 50, Chat 51, BuildVeto 52, BuildCommit 53
// (spec: "Who may send what", "Action category and verdict", "Action verdicts"; lockstep.md "Pause, speed and
// the pause order"). Fields the host sets on relay (from, name, allowed, pauseSeq, pauseUpto) are optional:
// a game sends the message without them.

import { LIMITS } from '../limits.ts';
import { bool, json, lenient, obj, oneOf, opt, str } from '../schema.ts';
import type { JsonValue, Schema } from '../schema.ts';
import { counter, detail, displayName, gameTime, hopField, playerId, text } from './common.ts';
import type { Hop } from './common.ts';

/** The categories the host normalises Action.category to (any other value counts as "other"). */
export const ACTION_CATEGORIES = ['build', 'bulldoze', 'spend', 'other'] as const;
export type ActionCategory = (typeof ACTION_CATEGORIES)[number];

/** The classes of a refusal (spec: "Action verdicts"). */
export const VERDICT_CLASSES = ['inject_refused', 'decode', 'engine', 'company', 'module'] as const;
export type VerdictClass = (typeof VERDICT_CLASSES)[number];

/** Chat levels that make a line a system notice. */
export const CHAT_LEVELS = ['info', 'warn', 'error'] as const;
export type ChatLevel = (typeof CHAT_LEVELS)[number];

/** Action 50, game → host → all but origin (a pause action: all). */
export interface ActionPayload {
  /** The game time it applies at; absent on a pause action until the host stamps the flush. */
  stamp?: number;
  /** Per originating game, from 1. */
  seq: number;
  /** The action record: any JSON value but null, kept as sent. */
  body: JsonValue;
  /** As sent: any string (one that is not a string of ≤ 64 code points is dropped, i.e. "other"); the host
   *  overwrites it with an ActionCategory on relay. */
  category?: string;
  /** Set by the host: the originating game. */
  from?: number;
  /** Set by the host from the permissions. */
  allowed?: boolean;
  pause?: boolean;
  applied?: boolean;
  /** Set by the host: the place in the pause order. */
  pauseSeq?: number;
  /** Set by the host: the pauseSeq of the flush's last item. */
  pauseUpto?: number;
  hop?: Hop;
}

/** Chat 51, game → host → all but origin. */
export interface ChatPayload {
  /** 1..500 code points. */
  text: string;
  /** Set by the host. */
  from?: number;
  /** Set by the host. */
  name?: string;
  /** Makes the line a system notice. */
  level?: ChatLevel;
}

/** BuildVeto 52, game → host → all but origin: "I cannot build action owner:seq". */
export interface BuildVetoPayload {
  seq: number;
  owner: number;
  /** ≤ 300 code points. */
  why: string;
  /** Set by the host. */
  from?: number;
  /** Set by the host. */
  name?: string;
  /** The host's own veto (refused on every game); cleared on relay of a game's veto. */
  host?: boolean;
  /**
   * Host → the vetoer only: the host did not relay this game's veto (too late, or nothing of that number waits): the
   * vetoer applies the build at its stamp. Never set on a relayed veto; a game's `late` is not read.
   */
  late?: boolean;
}

/** BuildCommit 53, game → host → all but origin: apply the parked build owner:seq at stamp. */
export interface BuildCommitPayload {
  seq: number;
  owner: number;
  stamp: number;
  /** Set by the host. */
  from?: number;
}

/**
 * ActionRefused 36, game → host: the game's verdict of action from:seq at its stamp. `applied: true` is the
 * action_applied verdict, which carries no detail.
 */
export interface ActionRefusedPayload {
  seq: number;
  from: number;
  detail?: string;
  applied?: boolean;
  /** An unknown class is dropped, not refused: the verdict itself still counts. */
  class?: VerdictClass;
  /** The engine threw after it had the command: this game's world may be partly built. */
  partial?: boolean;
}

export const actionSchema: Schema<ActionPayload> = obj({
  stamp: opt(gameTime()),
  seq: counter(),
  body: json({ maxDepth: LIMITS.bodyDepth, maxBytes: LIMITS.payloadBytes }),
  category: lenient(str({ max: LIMITS.categoryChars })),
  from: opt(playerId()),
  allowed: opt(bool()),
  pause: opt(bool()),
  // The spec lists Action.applied without saying what it is: dropped, not refused, when it is not true/false.
  applied: lenient(bool()),
  pauseSeq: opt(counter()),
  pauseUpto: opt(counter()),
  hop: hopField(),
});

export const chatSchema: Schema<ChatPayload> = obj({
  text: str({ min: 1, max: LIMITS.chatChars }),
  from: opt(playerId()),
  name: opt(displayName()),
  level: opt(oneOf(...CHAT_LEVELS)),
});

export const buildVetoSchema: Schema<BuildVetoPayload> = obj({
  seq: counter(),
  owner: playerId(),
  why: text(LIMITS.whyChars),
  from: opt(playerId()),
  name: opt(displayName()),
  // "host?" has no type in the spec: one that is not true/false is dropped (the veto counts as a game's).
  host: lenient(bool()),
  // Ours (the host's answer to a vetoer): it decides whether the vetoer applies the build, so it is strict.
  late: opt(bool()),
});

export const buildCommitSchema: Schema<BuildCommitPayload> = obj({
  seq: counter(),
  owner: playerId(),
  stamp: gameTime(),
  from: opt(playerId()),
});

export const actionRefusedSchema: Schema<ActionRefusedPayload> = obj({
  seq: counter(),
  from: playerId(),
  detail: opt(detail()),
  applied: opt(bool()),
  class: lenient(oneOf(...VERDICT_CLASSES)),
  partial: opt(bool()),
});
