// Lockstep clock payloads: PeerClock 12, Hello 30, Clock 31, SpeedRequest 32
// (spec: "Who may send what", "Latency stamps"; lockstep.md "The game's clock line").

import { LIMITS } from '../limits.ts';
import { bool, lenient, obj, opt } from '../schema.ts';
import type { Schema } from '../schema.ts';
import { counter, gameTime, hopField, playerId, speed, steps, text } from './common.ts';
import type { Hop, Speed } from './common.ts';

/** Hello 30, game → host: the game is loaded and stands at `time` (game ms). */
export interface HelloPayload {
  time: number;
  /** The save it loaded (a name or a path; dropped, not refused, when it is not a string of ≤ 1024 code
   *  points: a Hello must never be lost over it). */
  save?: string;
}

/** Clock 31, game → host (lockstep.md "The game's clock line"). */
export interface ClockPayload {
  /** Game time the game stands at. */
  t: number;
  /** Engine speed in effect, 0 when standing still. */
  speed: Speed;
  /** The stamp distance in steps the game uses now. */
  ahead: number;
  /** Stamp of an action committed to but not yet sent. */
  need?: number;
  /** The promise: every later Action or BuildCommit of this game carries a stamp ≥ safe. */
  safe?: number;
  /** The highest pauseSeq the game has read. */
  pause?: number;
  /** The game stands still at the pause at t. */
  stop?: boolean;
  hop?: Hop;
}

/** PeerClock 12, host → all but origin: a game's clock relayed (the table's fields: no speed, no stop). */
export interface PeerClockPayload {
  /** The game whose clock this is. */
  from: number;
  t: number;
  ahead: number;
  need?: number;
  safe?: number;
  pause?: number;
  /** Made by the host for a stalled game or an outsider; safe is then the host's promise. */
  stalled?: boolean;
  hop?: Hop;
}

/** SpeedRequest 32, game → host: 0 = pause. */
export interface SpeedRequestPayload {
  speed: Speed;
}

export const helloSchema: Schema<HelloPayload> = obj({ time: gameTime(), save: lenient(text(LIMITS.pathChars)) });

export const clockSchema: Schema<ClockPayload> = obj({
  t: gameTime(),
  speed: speed(),
  ahead: steps(),
  need: opt(gameTime()),
  safe: opt(gameTime()),
  pause: opt(counter()),
  stop: opt(bool()),
  hop: hopField(),
});

export const peerClockSchema: Schema<PeerClockPayload> = obj({
  from: playerId(),
  t: gameTime(),
  ahead: steps(),
  need: opt(gameTime()),
  safe: opt(gameTime()),
  pause: opt(counter()),
  stalled: opt(bool()),
  hop: hopField(),
});

export const speedRequestSchema: Schema<SpeedRequestPayload> = obj({ speed: speed() });
