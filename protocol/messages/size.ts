// A payload's size as it will be sealed (spec "Frame": a payload of more than 1 048 576 − 12 − 16 bytes is not
// sent). The host re-serialises what a peer sent (numbers written out in their shortest form, fields it adds), so
// a message it relays can be larger than the one it received: its size is measured on what goes out.
import { utf8Length } from '../bytes.ts';
import { measuredJson } from './codec.ts';
import type { KindName } from './kinds.ts';
import { LIMITS } from './limits.ts';
import type { Payloads } from './table.ts';

/**
 * The UTF-8 bytes of a payload's JSON text, exactly as it would be sealed. The text is kept for the payload's next
 * encoding (codec.ts measuredJson): measuring what is then sent costs no second encoding.
 */
export function payloadByteLength<K extends KindName>(kind: K, payload: Payloads[K]): number {
  return utf8Length(measuredJson(kind, payload));
}

/** Whether a payload fits one frame (LIMITS.payloadBytes), with `reserve` bytes kept for fields added later. */
export function fitsFrame<K extends KindName>(kind: K, payload: Payloads[K], reserve = 0): boolean {
  return payloadByteLength(kind, payload) + reserve <= LIMITS.payloadBytes;
}
