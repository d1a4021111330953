// Session.lead in steps (lockstep.md "The host's stamps"): clamp(ceil((maxRtt + 2 × clockInterval + 100) ×
// speed / STEP), 2, 32), changed only when it moves by 2 or more so a jittery round trip does not flap it.
import { STEP } from './stamps.ts';

export const MIN_LEAD = 2;
export const MAX_LEAD = 32;
/** The lead changes only when the proposal is at least this many steps away. */
export const LEAD_HYSTERESIS = 2;

const nonNegative = (x: number): number => (Number.isFinite(x) && x > 0 ? x : 0);

/**
 * The lead for the largest smoothed round trip among connected players (ms), the games' Clock cadence (ms) and
 * the speed (1, 2, 4). A speed of 0 or a non-finite input counts as 0, so the result is always in [2, 32].
 */
export function leadFor(maxRttMs: number, clockIntervalMs: number, speed: number): number {
  const wallMs = nonNegative(maxRttMs) + 2 * nonNegative(clockIntervalMs) + 100;
  const steps = Math.ceil((wallMs * nonNegative(speed)) / STEP);
  return Math.min(MAX_LEAD, Math.max(MIN_LEAD, steps));
}

/** The lead after a new proposal: the proposal when it moves by 2 or more, otherwise the current lead. */
export function nextLead(current: number, proposed: number): number {
  return Math.abs(proposed - current) >= LEAD_HYSTERESIS ? proposed : current;
}
