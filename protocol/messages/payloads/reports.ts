// Bug report payloads: ReportAsk 23, ReportBundle 24, ReportBusy 25, ReportRequest 40, ReportPart 41
// (spec: "Who may send what", "Bug reports"; lockstep.md "Bug reports").

import { LIMITS } from '../limits.ts';
import { lenient, obj, str, uint } from '../schema.ts';
import type { Schema } from '../schema.ts';
import { chunk, counter, displayName, playerId, text } from './common.ts';
import type { ChunkPayload } from './common.ts';

/** ReportAsk 23, host → players: build your part of report `report` and send it as transfer `id`. */
export interface ReportAskPayload {
  /** The transfer id the part is sent as. */
  id: number;
  /** The bug report. */
  report: number;
  /** Who asked: a player id. */
  by: number;
  byName: string;
  /** The most bytes this game's part may have. */
  maxBytes: number;
  /** A random salt for pseudonymising paths and names. */
  salt: string;
}

/** ReportBundle 24, host → the player who asked: the finished report, the shape of ResyncChunk. */
export type ReportBundlePayload = ChunkPayload;
/** ReportPart 41, a player's launcher → host: its part of a report, the shape of ResyncChunk. */
export type ReportPartPayload = ChunkPayload;

/** ReportBusy 25, host → the player who asked: report `id`, asked by `byName`, is still being made. */
export interface ReportBusyPayload {
  id: number;
  byName: string;
}

/** ReportRequest 40, a player's launcher → host: make a bug report. */
export interface ReportRequestPayload {
  note?: string;
}

export const reportAskSchema: Schema<ReportAskPayload> = obj({
  id: counter(),
  report: counter(),
  by: playerId(),
  byName: displayName(),
  maxBytes: uint(LIMITS.maxReportBytes),
  salt: str({ min: 1, max: LIMITS.saltChars, noControl: true }),
});

export const reportBundleSchema: Schema<ReportBundlePayload> = chunk();
export const reportPartSchema: Schema<ReportPartPayload> = chunk();

export const reportBusySchema: Schema<ReportBusyPayload> = obj({ id: counter(), byName: displayName() });

// "note?" has no shape in the spec: a note that is not text of ≤ 1000 code points is dropped, not the request.
export const reportRequestSchema: Schema<ReportRequestPayload> = obj({ note: lenient(text(LIMITS.noteChars)) });
