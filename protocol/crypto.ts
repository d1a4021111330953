// The crypto the wire layer needs, behind one small interface (spec: Frame, Key, Join code).
// protocol/ stays pure (no `node:` imports, runs in the browser): the launcher passes
// `nodeCrypto` (adapters/crypto, hardware AES on the hot path); tests and the inspector may pass
// `nobleCrypto` (protocol/nobleCrypto.ts, pure JS), which is also the independent second
// implementation the differential tests compare against.

/** AES-256-GCM under one fixed key, prepared once so the hot path does not re-import it. */
export interface AeadKey {
  /**
   * Encrypts `plaintext` and writes ciphertext ‖ 16-byte tag into `out` at `offset`
   * (`out` must have `plaintext.length + 16` bytes free there). Returns the bytes written. Reads `nonce`, `aad`
   * and `plaintext` during the call only and keeps none of them (callers reuse those buffers).
   */
  sealInto(nonce: Uint8Array, aad: Uint8Array, plaintext: Uint8Array, out: Uint8Array, offset: number): number;
  /** Opens ciphertext ‖ tag (the tag is exactly the last 16 bytes). `null` when it does not verify. */
  open(nonce: Uint8Array, aad: Uint8Array, sealed: Uint8Array): Uint8Array | null;
}

export interface Crypto {
  /** A short name for logs and benchmarks ("node", "noble"). */
  readonly name: string;
  sha256(data: Uint8Array): Uint8Array;
  /** HMAC-SHA256 over the concatenation of `parts`. */
  hmacSha256(key: Uint8Array, ...parts: Uint8Array[]): Uint8Array;
  hkdfSha256(ikm: Uint8Array, salt: Uint8Array, info: Uint8Array, length: number): Uint8Array;
  /** Asynchronous: 600 000 iterations must never block the event loop. */
  pbkdf2Sha256(password: Uint8Array, salt: Uint8Array, iterations: number, length: number): Promise<Uint8Array>;
  randomBytes(length: number): Uint8Array;
  /** Constant-time equality; `false` (never an exception) when the lengths differ. */
  equal(a: Uint8Array, b: Uint8Array): boolean;
  aesGcm(key: Uint8Array): AeadKey;
}

/** GCM tag length in bytes; a shorter tag is never accepted (Node would, unless told). */
export const TAG_BYTES = 16;
