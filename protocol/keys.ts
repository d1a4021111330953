// The key schedule (spec: wire-protocol.txt "Key", "Handshake" proof, "Reconnect" resume MAC):
// session key from the join code's secret and the optional lobby password, the join proof and the resume MAC.
import { concatBytes, u16be, u64be, utf8 } from './bytes.ts';
import type { Crypto } from './crypto.ts';
import { MAX_COUNTER } from './frame/codec.ts';

export const KDF_SALT = 'FeverLink3 v1';
export const KDF_INFO = 'session';
export const PBKDF2_ITERATIONS = 600_000;
/** Bytes of the join code's secret. */
export const SECRET_BYTES = 16;
/** Bytes of the session key (AES-256). */
export const SESSION_KEY_BYTES = 32;
/** Domain label at the start of a resume MAC's input. */
export const RESUME_LABEL = 'FeverLink3 resume';

const SALT = utf8(KDF_SALT);
const INFO = utf8(KDF_INFO);
const RESUME = utf8(RESUME_LABEL);
const LAST = utf8('last');

/**
 * key = HKDF-SHA256(ikm, salt "FeverLink3 v1", info "session", 32); ikm = secret, or
 * secret ‖ PBKDF2-HMAC-SHA256(UTF8(password), salt = secret, 600 000, 32) when a password is set
 * (async: never blocks the event loop). An empty password counts as no password. Throws RangeError
 * for a secret that is not 16 bytes (the join code decoder never yields one).
 */
export async function deriveSessionKey(crypto: Crypto, secret: Uint8Array, password?: string): Promise<Uint8Array> {
  if (secret.length !== SECRET_BYTES) {
    throw new RangeError(`secret: expected ${SECRET_BYTES} bytes, got ${secret.length}`);
  }
  let ikm = secret;
  if (password !== undefined && password !== '') {
    const stretched = await crypto.pbkdf2Sha256(utf8(password), secret, PBKDF2_ITERATIONS, SESSION_KEY_BYTES);
    ikm = concatBytes(secret, stretched);
  }
  return crypto.hkdfSha256(ikm, SALT, INFO, SESSION_KEY_BYTES);
}

/** proof = HMAC-SHA256(key, nonce ‖ UTF8(name)): the Join's proof that the sender holds the session key. */
export function joinProof(crypto: Crypto, key: Uint8Array, nonce: Uint8Array, name: string): Uint8Array {
  return crypto.hmacSha256(key, nonce, utf8(name));
}

/** Constant-time check of a Join's proof; false (never an exception) for a proof of any other length. */
export function checkJoinProof(
  crypto: Crypto,
  key: Uint8Array,
  nonce: Uint8Array,
  name: string,
  proof: Uint8Array,
): boolean {
  return crypto.equal(joinProof(crypto, key, nonce, name), proof);
}

/** HMAC-SHA256(token, "FeverLink3 resume" ‖ nonce ‖ u16 id ‖ UTF8(name) [‖ "last" ‖ u64 last]) */
export function resumeMac(
  crypto: Crypto,
  token: Uint8Array,
  nonce: Uint8Array,
  id: number,
  name: string,
  last?: bigint,
): Uint8Array {
  if (!Number.isInteger(id) || id < 0 || id > 65535) throw new RangeError(`id ${id} is not a u16`);
  if (last === undefined) return crypto.hmacSha256(token, RESUME, nonce, u16be(id), utf8(name));
  if (last < 0n || last > MAX_COUNTER) throw new RangeError(`last ${last} is not a u64`);
  return crypto.hmacSha256(token, RESUME, nonce, u16be(id), utf8(name), LAST, u64be(last));
}

/** Constant-time check of a resume MAC; false (never an exception) for a MAC of another length or a bad id/last. */
export function checkResumeMac(
  crypto: Crypto,
  token: Uint8Array,
  nonce: Uint8Array,
  id: number,
  name: string,
  last: bigint | undefined,
  mac: Uint8Array,
): boolean {
  if (!Number.isInteger(id) || id < 0 || id > 65535) return false;
  if (last !== undefined && (last < 0n || last > MAX_COUNTER)) return false;
  return crypto.equal(resumeMac(crypto, token, nonce, id, name, last), mac);
}
