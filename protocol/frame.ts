// The wire frame (spec: wire-protocol.txt "Frame"): constants, header codec, encoders and the streaming
// decoder. Entry point only; the code lives in ./frame/codec.ts and ./frame/decoder.ts.
export {
  FRAME_VERSION,
  PREFIX_BYTES,
  HEADER_BYTES,
  MIN_FRAME_LENGTH,
  MAX_FRAME_LENGTH,
  HANDSHAKE_MAX_LENGTH,
  MAX_PAYLOAD_BYTES,
  HOST_SENDER,
  UNASSIGNED_SENDER,
  MAX_COUNTER,
  FrameError,
  encodeHeader,
  decodeHeader,
  writeHeader,
  writePrefix,
  encodeFrame,
  encodeUnsealedFrame,
  frameFromBytes,
  decodeWireFrame,
} from './frame/codec.ts';
export type { FrameHeader, Frame } from './frame/codec.ts';
export { FrameDecoder } from './frame/decoder.ts';
