// fast-check arbitraries for the frame tests (spec wire-protocol.txt "Frame"): any header the codec must carry.
import fc from 'fast-check';
import type { FrameHeader } from '../../protocol/frame.ts';

/** Any valid frame header: version 1, any kind (u8), sender (u16) and counter (u64). */
export const headerArb: fc.Arbitrary<FrameHeader> = fc.record({
  version: fc.constant(1),
  kind: fc.integer({ min: 0, max: 255 }),
  sender: fc.integer({ min: 0, max: 65535 }),
  counter: fc.bigInt({ min: 0n, max: 2n ** 64n - 1n }),
});
