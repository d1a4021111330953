// One player of the host-relay bench (bench/hostRelay.bench.ts): a PlayerSession over TCP to a host running in
// its own process, and the "game" the bench plays on it: Hello and a standing Clock, then once the Session
// started a Clock every 100 ms like the mod, Actions paced under the spec's per-connection cap, and counts of
// what the host sent (frames, Actions, BuildVetoes). Pings are answered by the PlayerSession itself.
// Used in the bench process (the sender) and in the receiver child processes (bench/support/relayReceiver.ts).
import { PlayerSession, type PlayerNotice } from '../../actors/player/playerSession.ts';
import type { Connection, LogFn } from '../../actors/ports.ts';
import { realClock } from '../../adapters/clock.ts';
import { nodeCrypto } from '../../adapters/crypto/nodeCrypto.ts';
import { connectTcp } from '../../adapters/transport/tcp.ts';
import type { Frame } from '../../protocol/frame/codec.ts';
import { Kind, type ActionPayload, type ClockPayload } from '../../protocol/messages/index.ts';

/** The game time every bench game loads at (game ms). */
export const START_T = 10_000;
/** The mod's Clock cadence (ms). */
export const CLOCK_MS = 100;
/** How often a blasting peer tops its sends up to the pace (ms). */
const PACE_MS = 4;

/** What a peer has received from the host so far. */
export interface PeerCounts {
  /** Every frame the host sent on this connection (Action, PeerClock, Ping, Session, …). */
  frames: number;
  /** Relayed Actions. */
  actions: number;
  /** The host's BuildVetoes of another player's Action (that Action is relayed to nobody). */
  vetoes: number;
  /** The host's BuildVetoes of our own Actions. */
  ownVetoes: number;
  /** Lean peers only: every Action frame, our own Actions' copies included, counted by header and never opened. */
  actionFrames: number;
}

/**
 * What one peer has received by the end of a round, counted since it joined: at a round's end no Action is in
 * flight (every player sent its share and every player has the others'), so the difference of two of these is
 * exactly one round's, even though a peer's next round may see Actions of a faster peer before it starts itself.
 */
export interface RoundCounts extends PeerCounts {
  /** Everything expected arrived before the timeout. */
  complete: boolean;
  /** Actions (or vetoes of them) received per origin id. */
  byOrigin: Record<number, number>;
  ended?: string;
}

/** A frame counter in front of the connection the PlayerSession reads; a frame for which `take` returns true stops there. */
function counting(conn: Connection, take: (frame: Frame) => boolean): Connection {
  return {
    get id() {
      return conn.id;
    },
    get remoteAddress() {
      return conn.remoteAddress;
    },
    get addressKey() {
      return conn.addressKey;
    },
    get closeReason() {
      return conn.closeReason;
    },
    onFrame: (handler) =>
      conn.onFrame((frame) => {
        if (!take(frame)) handler(frame);
      }),
    onViolation: (handler) => conn.onViolation(handler),
    onClose: (handler) => conn.onClose(handler),
    write: (bytes) => conn.write(bytes),
    markJoined: () => conn.markJoined(),
    close: (reason, finalBytes) => conn.close(reason, finalBytes),
  };
}

/** The Action a bench game sends: about the size of a track build (`n` tells the bench which one it was). */
export function benchAction(seq: number, stamp: number): ActionPayload {
  return {
    seq,
    stamp,
    category: 'build',
    body: { n: seq, cmd: 'buildTrack', from: [1024 + seq, 2048], to: [1536, 2048 + (seq % 977)], type: 'standard' },
  };
}

export class RelayPeer {
  readonly name: string;
  readonly player: PlayerSession;
  readonly you: number;
  readonly counts: PeerCounts;
  /** Actions (or others' vetoes) received per origin id, since the join. */
  readonly byOrigin = new Map<number, number>();
  /** Why the host vetoed our own Actions, with how many times. */
  readonly vetoReasons = new Map<string, number>();
  /** Ids whose PeerClock reached us (each game that said hello and stood). */
  readonly peersSeen = new Set<number>();
  /** performance.now() when the started Session arrived. */
  startedAt: number | undefined;
  /** Why the session ended, if it did (a `flood` here means the pace broke the per-connection cap). */
  endedWith: string | undefined;
  /** Warnings the session logged (the first 20). */
  readonly problems: string[];
  /**
   * A lean peer counts Action frames by their clear header and hands them to nobody: no open, no parse. The
   * capacity run needs it, where 7 full players could not keep up with a host relaying 30 000 Actions a second
   * on this machine's 2 cores. Everything else (Pings, Sessions, PeerClocks, BuildVetoes) is read as usual.
   */
  readonly lean: boolean;
  private readonly clockMs: number;
  private seq = 0;
  private ticker: NodeJS.Timeout | undefined;
  /** The time of the last Clock this game sent. */
  private reportedT = START_T;
  private readonly waiters = new Set<() => void>();

  private constructor(
    name: string,
    player: PlayerSession,
    you: number,
    counts: PeerCounts,
    problems: string[],
    o: { lean: boolean; clockMs: number },
  ) {
    this.name = name;
    this.lean = o.lean;
    this.clockMs = o.clockMs;
    this.player = player;
    this.you = you;
    this.counts = counts;
    this.problems = problems;
    player.on((n) => this.notice(n));
  }

  /** Connects, joins and resolves once welcomed; `lean`: see {@link RelayPeer.lean}, `clockMs`: its Clock cadence. */
  static async join(port: number, key: Uint8Array, name: string, o = { lean: false, clockMs: CLOCK_MS }): Promise<RelayPeer> {
    const problems: string[] = [];
    const log: LogFn = (entry) => {
      const level = entry.level as string | undefined;
      const notable = level === 'warn' || level === 'error' || /dropped|failed|refused|did not|not from/.test(entry.msg);
      if (notable && problems.length < 20) {
        problems.push(JSON.stringify(entry).slice(0, 300));
      }
    };
    const counts: PeerCounts = { frames: 0, actions: 0, vetoes: 0, ownVetoes: 0, actionFrames: 0 };
    let peer: RelayPeer | undefined;
    const take = (frame: Frame): boolean => {
      counts.frames++;
      if (!o.lean || frame.header.kind !== Kind.Action) return false;
      counts.actionFrames++;
      peer?.poke();
      return true;
    };
    const conn = counting(await connectTcp({ host: '127.0.0.1', port, clock: realClock, log }), take);
    const player = new PlayerSession({ name, key }, { crypto: nodeCrypto, clock: realClock, wallClock: Date.now, log });
    const you = await new Promise<number>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`${name} was not welcomed within 10 s`)), 10_000);
      const off = player.on((n) => {
        if (n.type === 'welcomed') {
          clearTimeout(timer);
          off();
          resolve(n.you);
        } else if (n.type === 'ended') {
          clearTimeout(timer);
          off();
          reject(new Error(`${name} ended before Welcome: ${n.reason} ${n.detail ?? ''}`));
        }
      });
      player.connect(conn);
    });
    peer = new RelayPeer(name, player, you, counts, problems, o);
    return peer;
  }

  private notice(n: PlayerNotice): void {
    if (n.type === 'ended') {
      this.endedWith = `${n.reason}${n.detail ? ` (${n.detail})` : ''}`;
      clearInterval(this.ticker);
      this.poke();
      return;
    }
    if (n.type !== 'game') return;
    const m = n.message;
    switch (m.kind) {
      case 'Action': {
        const from = m.payload.from ?? -1;
        // The host's copy of our own Action (its origin gets it too): not a relayed action of another player.
        if (from === this.you) break;
        this.counts.actions++;
        this.byOrigin.set(from, (this.byOrigin.get(from) ?? 0) + 1);
        break;
      }
      case 'BuildVeto':
        if (m.payload.owner === this.you) {
          this.counts.ownVetoes++;
          this.vetoReasons.set(m.payload.why, (this.vetoReasons.get(m.payload.why) ?? 0) + 1);
        } else {
          this.counts.vetoes++;
          this.byOrigin.set(m.payload.owner, (this.byOrigin.get(m.payload.owner) ?? 0) + 1);
        }
        break;
      case 'PeerClock':
        this.peersSeen.add(m.payload.from);
        return;
      case 'Session':
        if (m.payload.started && m.payload.speed > 0 && this.startedAt === undefined) this.begin();
        return;
      default:
        return;
    }
    this.poke();
  }

  private poke(): void {
    for (const waiter of [...this.waiters]) waiter();
  }

  /** The game loads: Hello, then a Clock standing at START_T (the start waits for every game's clock). */
  hello(): void {
    this.player.send('Hello', { time: START_T });
    this.player.send('Clock', { t: START_T, speed: 0, ahead: 2, safe: START_T });
  }

  /**
   * The game's clock now: running at speed 1 since the start. Its promise `safe` is its time itself and every
   * Action is stamped with the time it is sent at: the host then counts few Actions in flight (it allows 512 of
   * one origin past the slowest game's reported time, machines/rules/inFlight.ts), so a pace near the
   * per-connection cap is never vetoed for crowding, as a stamp two steps ahead would be at this rate.
   */
  clockNow(): ClockPayload {
    const t = START_T + Math.floor(performance.now() - (this.startedAt ?? performance.now()));
    return { t, speed: 1, ahead: 2, safe: t };
  }

  private begin(): void {
    this.startedAt = performance.now();
    this.tickEvery(CLOCK_MS);
  }

  /** Clocks every `ms` from now on (a lean peer's rounds run at its own cadence, its idle time at the mod's). */
  private tickEvery(ms: number): void {
    clearInterval(this.ticker);
    this.ticker = setInterval(() => {
      const clock = this.clockNow();
      this.reportedT = clock.t;
      this.player.send('Clock', clock);
    }, ms);
  }

  /**
   * Sends `count` Actions at `perSecond` (topped up every few ms, so bursts stay far below the cap's bucket), and
   * never more than `allowed()` so far: the round's flow control, see {@link round}.
   */
  async blast(count: number, perSecond: number, allowed: () => number = () => count): Promise<void> {
    const start = performance.now();
    let sent = 0;
    while (sent < count && this.endedWith === undefined) {
      const paced = Math.ceil(((performance.now() - start) * perSecond) / 1000);
      const due = Math.min(count, paced, Math.floor(allowed()));
      if (due > sent) {
        // A lean peer stamps at the time it last reported: the host's in-flight count (stamps past the slowest
        // game's report) then stays at a Clock period's worth, not the whole lag of a machine the run saturates.
        const stamp = this.lean ? this.reportedT : this.clockNow().t;
        while (sent < due) {
          this.player.send('Action', benchAction(++this.seq, stamp));
          sent++;
        }
      }
      await new Promise((resolve) => setTimeout(resolve, PACE_MS));
    }
  }

  /**
   * What has come back so far, in the unit of a round's target: the others' Actions and vetoes; a lean peer, which
   * cannot tell its own Actions' copies from the others', every Action frame and every veto, its own included.
   */
  received(): number {
    const c = this.counts;
    return this.lean ? c.actionFrames + c.vetoes + c.ownVetoes : c.actions + c.vetoes;
  }

  /** Resolves once {@link received} reaches `target` (or the session ended), or after `ms`. */
  reached(target: number, ms: number): Promise<boolean> {
    const done = () => this.received() >= target || this.endedWith !== undefined;
    if (done()) return Promise.resolve(this.endedWith === undefined);
    return new Promise((resolve) => {
      const timer = setTimeout(() => {
        this.waiters.delete(check);
        resolve(false);
      }, ms);
      const check = () => {
        if (!done()) return;
        clearTimeout(timer);
        this.waiters.delete(check);
        resolve(this.endedWith === undefined);
      };
      this.waiters.add(check);
    });
  }

  /**
   * One round: blasts `count` Actions at `perSecond` while it waits until it holds `target` Actions (or vetoes of
   * them) from the others in all, `expect` of them from this round; resolves with its counts (since the join) and
   * whether all of it arrived within `timeoutMs`.
   * Flow control: every player sends the same share, so what arrived from the others tells how far the host has
   * got; a player stays at most `window` Actions ahead of that. A host that falls behind (the machine is busy)
   * so holds at most that many of a player's frames unread, far from the 1000 a connection's rate bucket holds:
   * past it the host closes the connection as a flood.
   */
  async round(
    count: number,
    perSecond: number,
    target: number,
    expect: number,
    timeoutMs: number,
    window: number,
  ): Promise<RoundCounts> {
    const from = target - expect;
    const arrived = () => this.received() - from;
    if (this.clockMs !== CLOCK_MS) this.tickEvery(this.clockMs);
    const [, complete] = await Promise.all([
      this.blast(count, perSecond, () => (arrived() * count) / expect + window),
      this.reached(target, timeoutMs),
    ]);
    if (this.clockMs !== CLOCK_MS && this.endedWith === undefined) this.tickEvery(CLOCK_MS);
    return {
      ...this.snapshot(),
      complete,
      byOrigin: Object.fromEntries(this.byOrigin),
      ...(this.endedWith === undefined ? {} : { ended: this.endedWith }),
    };
  }

  /** A copy of the counts now. */
  snapshot(): PeerCounts {
    return { ...this.counts };
  }

  close(): void {
    clearInterval(this.ticker);
    this.player.leave();
  }
}
