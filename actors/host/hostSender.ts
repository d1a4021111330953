// Everything the host sends, on one path: sealed as sender 0 with ONE counter for the whole session (no nonce is ever
// used twice), held for a resync participant while the save travels (heldMessages.ts), and kept in each player's
// outbox for a return (outbox.ts; lockstep.md "Catching up"): a message for a player who is away is kept there too,
// so a returner is given exactly what it missed. HostSession owns the links; this owns the sealer's use.
import { Kind, LIMITS, fitsFrame, payloadByteLength, payloadToJson, type KindName, type Payloads } from '../../protocol/messages/index.ts';
import type { Sealer } from '../../protocol/seal.ts';
import type { Clock, LogFn } from '../ports.ts';
import { decodeEncoded, sealedFrame, sealedText, type EncodedMessage, type Message } from '../wire.ts';
import { HeldMessages } from './heldMessages.ts';
import { Outbox, type OutboxCover, type SharedEntry } from './outbox.ts';
import type { PlayerLink } from './playerLink.ts';

/** Kinds never kept for a return: the session layer's own (a returner gets a fresh Welcome and fresh pings). */
const NOT_KEPT: ReadonlySet<KindName> = new Set<KindName>(['Welcome', 'Ping', 'Kicked']);

export interface HostSenderDeps {
  sealer: Sealer;
  /** The joined players' links by id (HostSession's map, read live). */
  links: ReadonlyMap<number, PlayerLink>;
  localGame?: ((message: Message) => void) | undefined;
  clock: Clock;
  log: LogFn;
  /** Outbox bounds (tests shrink them). */
  outboxAgeMs?: number;
  outboxBytes?: number;
}

export class HostSender {
  private readonly held = new HeldMessages<Message>();
  /** One per player holding a slot (connected or away); messages kept as their JSON text (wire.ts EncodedMessage). */
  private readonly outboxes = new Map<number, Outbox<EncodedMessage>>();
  /** The last broadcast's payload and its text, for one `textOf` of the same object right after (the relay ledger). */
  private lastBroadcast: { payload: unknown; text: string } | undefined;

  private readonly deps: HostSenderDeps;

  constructor(deps: HostSenderDeps) {
    this.deps = deps;
  }

  // ---- outboxes ----------------------------------------------------------------------------------

  /** A player took a slot: its outbox starts. */
  openOutbox(id: number): void {
    if (!this.outboxes.has(id)) this.outboxes.set(id, new Outbox(this.deps.outboxAgeMs, this.deps.outboxBytes));
  }

  /** The slot was released: nothing more is kept for it. */
  closeOutbox(id: number): void {
    this.outboxes.delete(id);
  }

  outboxOf(id: number): Outbox<EncodedMessage> | undefined {
    return this.outboxes.get(id);
  }

  /** Whether player `id`'s outbox still holds everything after `last` (Outbox.cover), as typed messages. */
  coverOf(id: number, last: number | undefined, now: number): OutboxCover<Message> {
    const cover = this.outboxes.get(id)?.cover(last, now);
    if (cover === undefined) return { covers: false, why: 'no outbox' };
    if (!cover.covers) return cover;
    const messages: Message[] = [];
    for (const kept of cover.messages) {
      const message = decodeEncoded(kept);
      if (message === undefined) return { covers: false, why: `a kept ${kept.kind} did not decode` };
      messages.push(message);
    }
    return { covers: true, messages };
  }

  /**
   * The JSON text of `payload`: the one the last broadcast sealed when it is that very object, taken once (the relay
   * ledger keeps each relayed item right after its broadcast, and so writes no second JSON of it); else written now.
   */
  textOf<K extends KindName>(kind: K, payload: Payloads[K]): string {
    const last = this.lastBroadcast;
    this.lastBroadcast = undefined;
    return last !== undefined && last.payload === payload ? last.text : payloadToJson(kind, payload);
  }

  /** The counter of the last frame sealed (what a Ping just sent was sealed with). */
  get lastCounter(): number {
    return Number(this.deps.sealer.nextCounter - 1n);
  }

  // ---- sending -----------------------------------------------------------------------------------

  /**
   * Seals once and writes the same frame to every joined player but `except`, the host's own game first; kept for
   * every away player. A payload that does not fit a frame, measured as it will be sealed, goes to nobody, the host's
   * game included (logged); false then. Callers that relay a peer's message check the size before they commit to it
   * (machines/rules/relaySize.ts); this is the last line, so no receiver ever gets a frame it refuses.
   */
  broadcast<K extends KindName>(kind: K, payload: Payloads[K], except?: number): boolean {
    const local = except !== 0 ? this.deps.localGame : undefined;
    const message = { kind, payload } as Message;
    this.lastBroadcast = undefined;
    // Sealed once if anyone is connected; without a receiver nothing is sealed (no counter used).
    let frame: Uint8Array | undefined;
    let text: string | undefined;
    /** Without a receiver: the payload's length, measured once for the size check and the away players' outboxes. */
    let bytes: number | undefined;
    if (this.hasReceiver(except)) {
      text = payloadToJson(kind, payload);
      frame = sealedText(this.deps.sealer, kind, text);
      if (frame === undefined) return this.tooLarge(kind, payload);
    } else if (local || this.outboxes.size > 0) {
      bytes = payloadByteLength(kind, payload as never);
      if (bytes > LIMITS.payloadBytes) return this.tooLarge(kind, payload);
    }
    if (local) this.toLocal(message);
    if (frame === undefined || text === undefined) {
      this.keepForAway(kind, payload, text, except, bytes, this.deps.clock.now());
      return true;
    }
    this.lastBroadcast = { payload, text };
    // The hot path (every relayed Action): one clock read and one outbox entry for all receivers, shared by their
    // outboxes (outbox.ts SharedEntry), not one of each per receiver.
    const now = this.deps.clock.now();
    const keeps = !NOT_KEPT.has(kind);
    let entry: SharedEntry<EncodedMessage> | undefined;
    for (const link of this.deps.links.values()) {
      if (link.id === except) continue;
      // A held participant keeps the message, not the frame: it is sealed when released. A frame sealed now and sent
      // after the save's chunks would carry a counter more than 64 below theirs, which the player's replay window refuses.
      if (this.held.keep(link.id, kind, message)) continue;
      link.conn.write(frame);
      if (!keeps) continue;
      const outbox = this.outboxes.get(link.id);
      if (outbox) outbox.keep((entry ??= Outbox.entry({ kind, text }, this.lastCounter, frame.length, now)), now);
    }
    this.keepForAway(kind, payload, text, except, frame.length, now);
    return true;
  }

  /** To one player; id 0 is the host's own game. False when the payload does not fit a frame (logged, not sent). */
  sendTo<K extends KindName>(id: number, kind: K, payload: Payloads[K]): boolean {
    if (id === 0) {
      if (!this.deps.localGame) return true;
      if (!fitsFrame(kind, payload)) return this.tooLarge(kind, payload);
      this.toLocal({ kind, payload } as Message);
      return true;
    }
    const link = this.deps.links.get(id);
    if (link && !this.held.holds(id, kind)) {
      // Sent now: sealing measures it (undefined when it does not fit), so it is encoded once.
      return this.sendNow(link, kind, payload) || this.tooLarge(kind, payload);
    }
    // Kept for later (held for a resync participant, or missed by a player away): measured here, refused if too large.
    const bytes = payloadByteLength(kind, payload as never);
    if (bytes > LIMITS.payloadBytes) return this.tooLarge(kind, payload);
    // payloadToJson right after the measure reuses its text (codec.ts measuredJson).
    if (link) this.held.keep(id, kind, { kind, payload } as Message);
    else if (!NOT_KEPT.has(kind)) this.outboxes.get(id)?.missed({ kind, text: payloadToJson(kind, payload) }, bytes, this.deps.clock.now());
    return true;
  }

  /**
   * Resends what a returner missed, in order, each sealed anew (fresh counters: never the old frames) and kept again
   * in its outbox. Returns how many went out.
   */
  resend(id: number, messages: readonly Message[]): number {
    const link = this.deps.links.get(id);
    if (!link) return 0;
    let sent = 0;
    // Each fitted when it was made; the same payload fits now.
    for (const message of messages) if (this.sendNow(link, message.kind, message.payload as never)) sent++;
    return sent;
  }

  /** Holds every message for these games (0: the host's own) but the session layer's, until `releaseHeld` (a resync). */
  hold(ids: readonly number[]): void {
    this.held.hold(ids);
  }

  /** Sends what was held for `id`, in order (right after its ResyncLoad); `drop`: forgets it (the player left). */
  releaseHeld(id: number, drop = false): void {
    const items = this.held.take(id);
    if (items === undefined || drop) return;
    const link = this.deps.links.get(id);
    for (const item of items) {
      if (id === 0) this.deps.localGame?.(item);
      // Sealed now, in the order it was made: its counter follows the chunks and the ResyncLoad.
      else if (link) this.sendNow(link, item.kind, item.payload as never);
    }
  }

  /**
   * Seals a ResyncChunk payload (its JSON bytes) once with the session's one counter: the whole frame. Chunks are
   * never kept for a return: every outbox notes a gap here (a returner whose last read frame is before it reloads).
   */
  sealChunk(payload: Uint8Array): Uint8Array {
    const frame = this.deps.sealer.seal(Kind.ResyncChunk, payload);
    const now = this.deps.clock.now();
    for (const [id, outbox] of this.outboxes) outbox.gap(this.deps.links.has(id) ? this.lastCounter : undefined, now);
    return frame;
  }

  /**
   * Seals a ReportBundle payload (its JSON bytes, protocol/messages/chunkCodec.ts) with the session's one counter: the
   * whole frame, written to the asker's connection directly (launcher only, never held or kept: actors/host/report.ts).
   */
  sealReportBundle(payload: Uint8Array): Uint8Array {
    return this.deps.sealer.seal(Kind.ReportBundle, payload);
  }

  /** A frame sealed outside the ordered path (the final Kicked). */
  seal<K extends KindName>(kind: K, payload: Payloads[K]): Uint8Array | undefined {
    return sealedFrame(this.deps.sealer, kind, payload);
  }

  /** Seals and writes one message to `link` and keeps it in the player's outbox; false when it does not fit a frame. */
  private sendNow<K extends KindName>(link: PlayerLink, kind: K, payload: Payloads[K]): boolean {
    const text = payloadToJson(kind, payload);
    const frame = sealedText(this.deps.sealer, kind, text);
    if (frame === undefined) return false;
    link.conn.write(frame);
    if (!NOT_KEPT.has(kind)) this.outboxes.get(link.id)?.sent({ kind, text }, this.lastCounter, frame.length, this.deps.clock.now());
    return true;
  }

  /**
   * Every player away (an outbox but no link) keeps what the connected ones were sent. `text`: the payload's JSON if
   * written already; `measured`: the frame's (or, without one, the payload's) length if known. Else each is written
   * or measured here, once.
   */
  private keepForAway<K extends KindName>(
    kind: K,
    payload: Payloads[K],
    text: string | undefined,
    except: number | undefined,
    measured: number | undefined,
    now: number,
  ): void {
    if (this.outboxes.size === this.deps.links.size || NOT_KEPT.has(kind)) return;
    let kept: EncodedMessage | undefined;
    let bytes = measured;
    for (const [id, outbox] of this.outboxes) {
      if (id === except || this.deps.links.has(id)) continue;
      bytes ??= payloadByteLength(kind, payload);
      kept ??= { kind, text: text ?? payloadToJson(kind, payload) };
      outbox.missed(kept, bytes, now);
    }
  }

  private toLocal(message: Message): void {
    if (!this.held.keep(0, message.kind, message)) this.deps.localGame?.(message);
  }

  private hasReceiver(except: number | undefined): boolean {
    for (const link of this.deps.links.values()) if (link.id !== except) return true;
    return false;
  }

  private tooLarge(kind: KindName, payload: Payloads[KindName]): false {
    const bytes = payloadByteLength(kind, payload as never);
    this.deps.log({ msg: 'message not sent: larger than a frame', kind, bytes, limit: LIMITS.payloadBytes });
    return false;
  }
}
