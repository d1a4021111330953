// The transport's limits (spec: wire-protocol.txt "Handshake", last paragraph; lockstep.md "Limits";
// docs/SECURITY.md section 6): defaults and the check of an injected set.
import type { TransportLimits } from '../../actors/ports.ts';
import { HANDSHAKE_MAX_LENGTH, MAX_FRAME_LENGTH, MIN_FRAME_LENGTH, PREFIX_BYTES } from '../../protocol/frame.ts';

/** The spec's numbers. */
export const DEFAULT_LIMITS: Readonly<TransportLimits> = Object.freeze({
  handshakeMaxLength: HANDSHAKE_MAX_LENGTH,
  maxPending: 32,
  maxConnections: 64,
  maxPerAddress: 16,
  writeTimeoutMs: 10_000,
  maxFramesPerSecond: 1000,
  maxBytesPerSecond: 1_048_576,
  maxQueuedBytes: 8 * 1_048_576,
});

/**
 * The defaults with `overrides` applied. Throws RangeError for a set that cannot work (these come from our
 * own code and tests, never from a peer): non-positive numbers, a handshake limit outside the frame bounds,
 * a byte rate that would refuse one largest frame, or a write queue that cannot hold one.
 */
export function resolveLimits(overrides: Partial<TransportLimits> = {}): TransportLimits {
  const limits: TransportLimits = { ...DEFAULT_LIMITS };
  for (const [name, value] of Object.entries(overrides) as [keyof TransportLimits, number | undefined][]) {
    if (value !== undefined) limits[name] = value;
  }
  for (const [name, value] of Object.entries(limits)) {
    if (typeof value !== 'number' || !(value > 0) || !Number.isFinite(value)) {
      throw new RangeError(`transport limit ${name} must be a positive number, got ${String(value)}`);
    }
  }
  if (limits.handshakeMaxLength < MIN_FRAME_LENGTH || limits.handshakeMaxLength > MAX_FRAME_LENGTH) {
    const bounds = `[${MIN_FRAME_LENGTH}, ${MAX_FRAME_LENGTH}]`;
    throw new RangeError(`handshakeMaxLength ${limits.handshakeMaxLength} outside ${bounds}`);
  }
  if (limits.maxBytesPerSecond < MAX_FRAME_LENGTH) {
    const rate = limits.maxBytesPerSecond;
    throw new RangeError(`maxBytesPerSecond ${rate} would refuse a single ${MAX_FRAME_LENGTH}-byte frame`);
  }
  if (limits.maxQueuedBytes < PREFIX_BYTES + MAX_FRAME_LENGTH) {
    throw new RangeError(`maxQueuedBytes ${limits.maxQueuedBytes} cannot hold one largest frame`);
  }
  return limits;
}
