// What a player keeps to come back after its connection drops (spec "Reconnect", "Catching up"): the last Welcome's
// resume token, the counter of the last host frame read (`resume.last`), what it sent that the host has not
// acknowledged (unacked.ts, let go of by Ping.ack), and what its game sent while the connection was down. After a
// resumed Welcome with `catchUp` both are resent (sealed anew by the session); without it they are dropped (a
// `player returned` round reloads the game).
import type { Crypto } from '../../protocol/crypto.ts';
import { resumeMac } from '../../protocol/keys.ts';
import type { KindName, Payloads } from '../../protocol/messages/index.ts';
import type { Message } from '../wire.ts';
import { Unacked } from './unacked.ts';

/** Kinds of the session layer itself: never kept for a resume (a Pong answers one connection's Ping). */
export const SESSION_LAYER: ReadonlySet<KindName> = new Set<KindName>(['Pong', 'Leave']);
/** The most messages the game may send while the connection is down (kept for the resume; the oldest fall out). */
const MAX_WHILE_AWAY = 65_536;

export class ResumeState {
  private token: { token: Uint8Array; epoch: number } | undefined;
  /** The counter of the last host frame read. */
  private lastFromHost = 0;
  private readonly unacked = new Unacked<Message>();
  private whileAway: Message[] = [];

  /** A Welcome (the first, or a resume's): its token is the one the next resume shows. */
  welcomed(resume: Payloads['Welcome']['resume']): void {
    if (resume) this.token = resume;
  }

  /** A new sender (a first join or a new id): nothing of before is ours to resend. */
  reset(resume: Payloads['Welcome']['resume']): void {
    this.token = resume;
    this.unacked.clear();
    this.whileAway = [];
  }

  /**
   * A host frame opened: one ordered stream, so every frame before it was read too. A counter past 2^53 − 1 cannot be
   * said exactly in Join.resume.last (a JSON number): then none is sent, and the host resumes without a catch-up.
   */
  read(counter: bigint): void {
    this.lastFromHost = counter <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(counter) : 0;
  }

  /** Ping.ack: the host read everything up to this counter of ours. */
  acknowledged(ack: number): void {
    this.unacked.acknowledge(ack);
  }

  /** A message written with `counter` (session-layer kinds are not kept). */
  sent(message: Message, counter: number, bytes: number, now: number): void {
    if (!SESSION_LAYER.has(message.kind)) this.unacked.sent(message, counter, bytes, now);
  }

  /** A message the game sent while the connection was down: kept for the resume (bounded). */
  keep(message: Message): void {
    if (this.whileAway.length >= MAX_WHILE_AWAY) this.whileAway.shift();
    this.whileAway.push(message);
  }

  /** Join.resume for this handshake's nonce (undefined without a token). */
  join(crypto: Crypto, nonce: Uint8Array, id: number, name: string): Payloads['Join']['resume'] {
    if (this.token === undefined) return undefined;
    const last = this.lastFromHost > 0 ? this.lastFromHost : undefined;
    const mac = resumeMac(crypto, this.token.token, nonce, id, name, last === undefined ? undefined : BigInt(last));
    return { id, mac, ...(last === undefined ? {} : { last }) };
  }

  /**
   * A resumed Welcome: with `catchUp` what to resend, in order (above catchUp, then what was kept while away);
   * without it nothing. Either way the lists are empty after.
   */
  resumed(catchUp: number | undefined): { again: Message[]; lost: number } {
    const again = catchUp === undefined ? [] : [...this.unacked.takeAfter(catchUp), ...this.whileAway];
    this.unacked.clear();
    this.whileAway = [];
    return { again, lost: this.unacked.lost };
  }
}
