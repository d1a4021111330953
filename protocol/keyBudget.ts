// How much one session key may seal (reliability-tests.md C11; NIST SP 800-38D §8: the amount of data processed
// under one GCM key is bounded). The protocol has no rekeying: a secret serves one session, and a session's key
// seals every frame of every sender. So the host, which opens every frame a player seals and seals everything it
// sends, counts the payload bytes under the key, and the session ends before the count reaches 2^38.5 bytes
// (docs/DECISIONS.md "Key budget").

/** Payload bytes under one key after which the host ends the session: 2^38 (256 GiB), a margin below 2^38.5. */
export const KEY_BUDGET_BYTES = 2 ** 38;

/** The payload bytes sealed and opened under one key, against a limit. Plain counting: the hot path adds one number. */
export class KeyBudget {
  readonly limit: number;
  #used = 0;

  constructor(limit: number = KEY_BUDGET_BYTES) {
    if (!(limit > 0)) throw new RangeError(`key budget ${limit} is not a positive number of bytes`);
    this.limit = limit;
  }

  add(bytes: number): void {
    this.#used += bytes;
  }

  /** Bytes counted so far. */
  get used(): number {
    return this.#used;
  }

  /** Whether the count reached the limit: the key must seal no more. */
  get spent(): boolean {
    return this.#used >= this.limit;
  }
}
