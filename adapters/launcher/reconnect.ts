// The player's launcher reconnects by itself (issue 12 item 4; spec "Reconnect", lockstep.md "Leave and removal"):
// after the session's `away` notice (the connection dropped while joined) it connects again with backoff — 0.25 s,
// 0.5, 1, 2, 4, then every 5 s, each with jitter — and hands each new connection to `player.reconnect(conn)`, which
// runs the handshake with Join.resume. A failed attempt (the connection closed before the Welcome) is another `away`
// notice: the next attempt is scheduled. A Welcome (`resumed`, or `welcomed` when the host made it a plain join with
// a new id) ends the episode; a later drop starts a new one with a fresh window. When the window (reconnectSeconds,
// 300 s) runs out, `player.giveUp('reconnect window ended')` ends the session. Every timer goes through the injected
// `Clock`, the jitter through the injected `random`: a test drives it all with a simulated clock.
import type { Clock, Connection, LogFn } from '../../actors/ports.ts';

/** lockstep.md "Leave and removal": the host holds a dropped player's slot for reconnectSeconds. */
export const RECONNECT_WINDOW_MS = 300_000;
/** The first retry's delay; each later one doubles it, up to RECONNECT_MAX_DELAY_MS. */
export const RECONNECT_FIRST_DELAY_MS = 250;
export const RECONNECT_MAX_DELAY_MS = 5_000;
/** The reason the session ends with when the window ran out. */
export const RECONNECT_GAVE_UP = 'reconnect window ended';

/** The notices of PlayerSession the loop acts on (a structural subset: a test can drive a fake). */
export type ReconnectNotice =
  | { type: 'away'; reason: string }
  | { type: 'resumed'; you: number; caughtUp: boolean }
  | { type: 'welcomed'; you: number }
  | { type: 'ended'; reason: string; detail?: string }
  | { type: string };

/** What the loop needs of the player's session (PlayerSession fits). */
export interface ReconnectTarget {
  on(listener: (notice: ReconnectNotice) => void): () => void;
  reconnect(conn: Connection): void;
  giveUp(reason: string): void;
}

export interface ReconnectOptions {
  player: ReconnectTarget;
  /** One attempt's connection (the launcher: the join code's endpoints in turn); undefined when none was reached. */
  connect(): Promise<Connection | undefined>;
  clock: Clock;
  /** [0, 1): the jitter of each delay. */
  random: () => number;
  log: LogFn;
  /** How long after the drop the loop keeps trying (default RECONNECT_WINDOW_MS). */
  windowMs?: number;
  firstDelayMs?: number;
  maxDelayMs?: number;
}

export type ReconnectState =
  /** Joined (or not yet dropped): nothing to do. */
  | 'idle'
  /** Waiting for the next attempt's timer. */
  | 'waiting'
  /** The attempt's connection is being made. */
  | 'connecting'
  /** The connection is up; the resume handshake runs. */
  | 'handshaking'
  /** The window ran out; the session was ended. */
  | 'gaveUp'
  /** The session ended otherwise (left, Kicked, Reject) or the loop was stopped. */
  | 'ended';

export interface ReconnectStatus {
  state: ReconnectState;
  /** The attempt of this episode that runs or comes next, from 1. */
  attempt: number;
  /** Until the next attempt (state waiting). */
  nextInMs?: number;
  /** Until the window ends (in an episode). */
  leftMs?: number;
  /** Why the connection dropped (the first away of the episode) or the last attempt failed. */
  reason?: string;
  /** Episodes started (connections lost while joined), resumes (episodes ended by a Welcome), attempts in all. */
  drops: number;
  resumes: number;
  attempts: number;
}

export type ReconnectEvent =
  | { type: 'away'; reason: string; windowMs: number }
  | { type: 'attempt'; attempt: number; delayMs: number; leftMs: number }
  | { type: 'failed'; attempt: number; reason: string }
  | { type: 'reconnected'; attempts: number; awayMs: number; resumed: boolean; you: number; caughtUp?: boolean }
  | { type: 'gaveUp'; attempts: number; awayMs: number };

/** The delay before attempt `attempt` (from 1): first × 2^(attempt−1), capped, times 0.75..1.25 by `random`, capped. */
export function backoffDelay(attempt: number, random: () => number, firstMs = RECONNECT_FIRST_DELAY_MS, maxMs = RECONNECT_MAX_DELAY_MS): number {
  const base = Math.min(maxMs, firstMs * 2 ** Math.min(30, Math.max(0, attempt - 1)));
  const r = random();
  const jitter = 0.75 + 0.5 * (r >= 0 && r < 1 ? r : 0.5);
  return Math.round(Math.min(maxMs, base * jitter));
}

/** `4:51` for 291 000 ms (rounded up to the second). */
export function formatLeft(ms: number): string {
  const s = Math.max(0, Math.ceil(ms / 1000));
  return `${Math.floor(s / 60)}:${String(s % 60).padStart(2, '0')}`;
}

/** The launcher's status line while it reconnects (`reconnecting: attempt 3, next in 2 s, 4:51 left`); undefined when joined. */
export function reconnectStatusLine(s: ReconnectStatus): string | undefined {
  const left = s.leftMs === undefined ? '' : `, ${formatLeft(s.leftMs)} left`;
  switch (s.state) {
    case 'waiting':
      return `reconnecting: attempt ${s.attempt}, next in ${Math.max(0, Math.ceil((s.nextInMs ?? 0) / 1000))} s${left}`;
    case 'connecting':
    case 'handshaking':
      return `reconnecting: attempt ${s.attempt}, ${s.state === 'connecting' ? 'connecting' : 'resuming'}${left}`;
    case 'gaveUp':
      return `reconnect gave up after ${s.attempts} attempts`;
    default:
      return undefined;
  }
}

/** Starts the loop: it listens to the player's notices until `stop()` or the session's end. */
export class ReconnectLoop {
  readonly #o: Required<Omit<ReconnectOptions, 'player' | 'connect' | 'clock' | 'random' | 'log'>> & ReconnectOptions;
  readonly #off: () => void;
  readonly #listeners = new Set<(event: ReconnectEvent) => void>();
  #state: ReconnectState = 'idle';
  #attempt = 0;
  #reason: string | undefined;
  #awaySince = 0;
  #windowEnd = 0;
  #nextAt = 0;
  #timer: unknown;
  #windowTimer: unknown;
  /** Counts attempts, so a connection that arrives after its episode ended (or after stop) is closed, not used. */
  #episode = 0;
  #drops = 0;
  #resumes = 0;
  #attempts = 0;

  constructor(options: ReconnectOptions) {
    this.#o = {
      windowMs: RECONNECT_WINDOW_MS,
      firstDelayMs: RECONNECT_FIRST_DELAY_MS,
      maxDelayMs: RECONNECT_MAX_DELAY_MS,
      ...options,
    };
    this.#off = options.player.on((n) => {
      try {
        this.#notice(n);
      } catch (error) {
        this.#o.log({ msg: 'reconnect: handling a notice failed', level: 'error', type: n.type, error: String(error) });
      }
    });
  }

  /** Events for the terminal: the drop, each attempt, a failure, the outcome. */
  on(listener: (event: ReconnectEvent) => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  status(): ReconnectStatus {
    const now = this.#o.clock.now();
    const inEpisode = this.#state === 'waiting' || this.#state === 'connecting' || this.#state === 'handshaking';
    return {
      state: this.#state,
      attempt: this.#attempt,
      ...(this.#state === 'waiting' ? { nextInMs: Math.max(0, this.#nextAt - now) } : {}),
      ...(inEpisode ? { leftMs: Math.max(0, this.#windowEnd - now) } : {}),
      ...(this.#reason === undefined ? {} : { reason: this.#reason }),
      drops: this.#drops,
      resumes: this.#resumes,
      attempts: this.#attempts,
    };
  }

  /** The status line (`reconnecting: attempt 3, next in 2 s, 4:51 left`), or undefined when there is nothing to say. */
  statusLine(): string | undefined {
    return reconnectStatusLine(this.status());
  }

  /** Stops listening and cancels the timers; the session is left as it is. */
  stop(): void {
    this.#off();
    this.#clearTimers();
    if (this.#state !== 'gaveUp') this.#state = 'ended';
    this.#episode++;
  }

  #notice(n: ReconnectNotice): void {
    if (this.#state === 'ended' || this.#state === 'gaveUp') return;
    switch (n.type) {
      case 'away': {
        const reason = (n as { reason: string }).reason;
        if (this.#state === 'idle') this.#startEpisode(reason);
        else if (this.#state === 'handshaking') this.#attemptFailed(reason);
        // waiting / connecting: an away without a handshake of ours running is a repeat; the timer is set already
        break;
      }
      case 'resumed':
      case 'welcomed': {
        if (this.#state === 'idle') return; // the first Welcome of the session
        const you = (n as { you: number }).you;
        const caughtUp = n.type === 'resumed' ? (n as { caughtUp: boolean }).caughtUp : undefined;
        this.#succeeded(n.type === 'resumed', you, caughtUp);
        break;
      }
      case 'ended':
        this.#clearTimers();
        this.#episode++;
        this.#state = 'ended';
        break;
    }
  }

  #startEpisode(reason: string): void {
    const now = this.#o.clock.now();
    this.#drops++;
    this.#attempt = 0;
    this.#reason = reason;
    this.#awaySince = now;
    this.#windowEnd = now + this.#o.windowMs;
    this.#o.log({ msg: 'connection lost: reconnecting', level: 'warn', reason, windowMs: this.#o.windowMs });
    this.#emit({ type: 'away', reason, windowMs: this.#o.windowMs });
    this.#windowTimer = this.#o.clock.setTimeout(() => this.#windowEnded(), this.#o.windowMs);
    this.#schedule();
  }

  #schedule(): void {
    this.#attempt++;
    const delay = backoffDelay(this.#attempt, this.#o.random, this.#o.firstDelayMs, this.#o.maxDelayMs);
    const now = this.#o.clock.now();
    this.#state = 'waiting';
    this.#nextAt = now + delay;
    this.#timer = this.#o.clock.setTimeout(() => {
      this.#timer = undefined;
      void this.#run(delay);
    }, delay);
  }

  async #run(delayMs: number): Promise<void> {
    if (this.#state !== 'waiting') return;
    const episode = ++this.#episode;
    const attempt = this.#attempt;
    const leftMs = Math.max(0, Math.round(this.#windowEnd - this.#o.clock.now()));
    this.#state = 'connecting';
    this.#attempts++;
    this.#o.log({ msg: 'reconnecting', attempt, delayMs, leftMs });
    this.#emit({ type: 'attempt', attempt, delayMs, leftMs });
    let conn: Connection | undefined;
    try {
      conn = await this.#o.connect();
    } catch (error) {
      conn = undefined;
      this.#o.log({ msg: 'reconnect: connect failed', attempt, error: String(error) });
    }
    if (episode !== this.#episode || this.#state !== 'connecting') {
      conn?.close('reconnect over'); // the window ended, the session ended or the loop stopped meanwhile
      return;
    }
    if (!conn) {
      this.#attemptFailed('no endpoint reached');
      return;
    }
    this.#state = 'handshaking';
    try {
      this.#o.player.reconnect(conn);
    } catch (error) {
      conn.close('reconnect failed');
      if (this.#state === 'handshaking') this.#attemptFailed(`reconnect threw: ${String(error)}`);
    }
  }

  #attemptFailed(reason: string): void {
    this.#reason = reason;
    this.#o.log({ msg: 'reconnect attempt failed', attempt: this.#attempt, reason });
    this.#emit({ type: 'failed', attempt: this.#attempt, reason });
    this.#schedule();
  }

  #succeeded(resumed: boolean, you: number, caughtUp: boolean | undefined): void {
    const attempts = this.#attempt;
    const awayMs = Math.round(this.#o.clock.now() - this.#awaySince);
    this.#clearTimers();
    this.#episode++;
    this.#state = 'idle';
    this.#resumes++;
    this.#reason = undefined;
    this.#o.log({ msg: 'reconnected', attempts, awayMs, resumed, you, ...(caughtUp === undefined ? {} : { caughtUp }) });
    this.#emit({ type: 'reconnected', attempts, awayMs, resumed, you, ...(caughtUp === undefined ? {} : { caughtUp }) });
  }

  #windowEnded(): void {
    this.#windowTimer = undefined;
    if (this.#state === 'idle' || this.#state === 'ended' || this.#state === 'gaveUp') return;
    const attempts = this.#attempt;
    const awayMs = Math.round(this.#o.clock.now() - this.#awaySince);
    this.#clearTimers();
    this.#episode++;
    this.#state = 'gaveUp';
    this.#o.log({ msg: 'gave up', level: 'warn', reason: RECONNECT_GAVE_UP, attempts, awayMs });
    this.#emit({ type: 'gaveUp', attempts, awayMs });
    try {
      this.#o.player.giveUp(RECONNECT_GAVE_UP);
    } catch (error) {
      this.#o.log({ msg: 'reconnect: giving up failed', level: 'error', error: String(error) });
    }
  }

  #clearTimers(): void {
    if (this.#timer !== undefined) this.#o.clock.clearTimeout(this.#timer);
    if (this.#windowTimer !== undefined) this.#o.clock.clearTimeout(this.#windowTimer);
    this.#timer = undefined;
    this.#windowTimer = undefined;
  }

  #emit(event: ReconnectEvent): void {
    for (const listener of [...this.#listeners]) {
      try {
        listener(event);
      } catch (error) {
        this.#o.log({ msg: 'reconnect: a listener failed', level: 'error', event: event.type, error: String(error) });
      }
    }
  }
}
