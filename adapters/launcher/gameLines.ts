// What the launcher takes from its game's from_game.log (spec wire-protocol.txt "Who may send what"): a game's lines
// pass the same table as a player's frames, narrowed to what a GAME sends. Pong and Leave are the player's session
// layer's, ResyncUpload, ReportRequest and ReportPart its launcher's: a game line of those kinds (or of a host kind)
// is refused and logged once per kind, never handed to the session. Logging is bounded (BoundedLog): a game that
// writes bad lines in a loop cannot flood the launcher's log.
import type { LogFn } from '../../actors/ports.ts';
import type { Message } from '../../actors/wire.ts';
import { Kind, KIND_NAMES, gameMaySend as gameKind, validatePayload, type KindName } from '../../protocol/messages/index.ts';

/** Kinds a player may send that its GAME may not: the session layer's (Pong, Leave) and its launcher's. */
export const LAUNCHER_ONLY_KINDS: ReadonlySet<KindName> = new Set<KindName>(['Pong', 'Leave', 'ResyncUpload', 'ReportRequest', 'ReportPart']);

/** The kinds a game may write to from_game.log: the protocol's table (30–36, 50–53: a player's kinds but those). */
export const GAME_MAY_SEND: ReadonlySet<KindName> = new Set<KindName>(KIND_NAMES.filter((name) => gameKind(Kind[name])));

/** Whether a game may send a line of this kind (an own key of Kind, in GAME_MAY_SEND). */
export function gameMaySend(kind: string): kind is KindName {
  return Object.hasOwn(Kind, kind) && GAME_MAY_SEND.has(kind as KindName);
}

/** The outcome of checking one game line. */
export type GameLineCheck =
  | { ok: true; message: Message }
  | { ok: false; forbidden: boolean; kind: string; why: string };

/** Checks one game line: its kind against GAME_MAY_SEND, its payload against the kind's schema. Never throws. */
export function checkGameLine(kind: string, payload: unknown): GameLineCheck {
  if (!gameMaySend(kind)) {
    const why = Object.hasOwn(Kind, kind) ? 'not a kind a game sends' : 'not a kind a game sends (unknown kind)';
    return { ok: false, forbidden: true, kind, why };
  }
  let checked: ReturnType<typeof validatePayload>;
  try {
    checked = validatePayload(kind, payload);
  } catch (error) {
    return { ok: false, forbidden: false, kind, why: `payload not checked: ${String(error)}` };
  }
  if (!checked.ok) return { ok: false, forbidden: false, kind, why: checked.reason };
  const message = { kind, payload: checked.value } as Message;
  // Latency stamps: l = when this launcher read the game's line (the mod may have set g, when it wrote it).
  if (message.kind === 'Clock' || message.kind === 'Action') message.payload.hop = { ...message.payload.hop, l: Date.now() };
  return { ok: true, message };
}

/** How much of a repeated problem reaches the log. */
export interface BoundedLogLimits {
  /** Entries logged in full per key (default 5); after that only counters, at 10, 100, 1000, … */
  firstPerKey: number;
  /** Distinct keys counted (default 64); further keys share the key `other`. */
  maxKeys: number;
}

export const DEFAULT_BOUNDED_LOG: Readonly<BoundedLogLimits> = { firstPerKey: 5, maxKeys: 64 };

function isPowerOfTen(n: number): boolean {
  let p = 10;
  while (p < n) p *= 10;
  return p === n;
}

/**
 * A log that writes the first few entries of each key, then only a counter line each time the count reaches a
 * power of ten: at most firstPerKey + log10(count) lines per key, and at most maxKeys + 1 keys.
 */
export class BoundedLog {
  #log: LogFn;
  #limits: BoundedLogLimits;
  #counts = new Map<string, number>();
  #total = 0;

  constructor(log: LogFn, limits: Partial<BoundedLogLimits> = {}) {
    this.#log = log;
    this.#limits = { ...DEFAULT_BOUNDED_LOG, ...limits };
  }

  /** Counts one entry of `key`; logs it while the key has been seen at most `first` times. True when logged. */
  note(key: string, entry: { msg: string; [k: string]: unknown }, first = this.#limits.firstPerKey): boolean {
    const k = this.#counts.has(key) || this.#counts.size < this.#limits.maxKeys ? key : 'other';
    const count = (this.#counts.get(k) ?? 0) + 1;
    this.#counts.set(k, count);
    this.#total++;
    if (count < first) return this.#write(entry);
    if (count === first) return this.#write({ ...entry, more: 'further ones are counted, logged again at 10, 100, 1000, …' });
    if (isPowerOfTen(count)) this.#write({ msg: `${entry.msg} (repeated)`, level: entry.level ?? 'warn', key: k, count });
    return false;
  }

  /** A log that throws must not end the caller (a line's handling, a subscription): the entry is lost, nothing else. */
  #write(entry: { msg: string; [k: string]: unknown }): boolean {
    try {
      this.#log(entry);
      return true;
    } catch {
      return false;
    }
  }

  /** Entries counted for one key (0 when never seen). */
  count(key: string): number {
    return this.#counts.get(key) ?? 0;
  }

  /** Entries counted in all. */
  get total(): number {
    return this.#total;
  }

  /** Counts per key (a copy). */
  counts(): Record<string, number> {
    return Object.fromEntries(this.#counts);
  }
}

/** What the gate skipped since the bridge started, for the launcher's status. */
export interface GateCounts {
  /** Lines of a kind a game may not send. */
  refused: number;
  /** Lines whose payload does not validate. */
  invalid: number;
  /** Lines whose handling threw (skipped). */
  faults: number;
  /** Lines the file link could not parse (and read errors, replacements): `GameLink.problems`. */
  problems: number;
}

/**
 * The launcher's gate for one game's lines: GAME_MAY_SEND + the payload schemas, with bounded logging (a refused
 * kind once per kind, an invalid payload or a fault the first few times per kind, then counters).
 */
export class GameLineGate {
  readonly log: BoundedLog;
  #counts: GateCounts = { refused: 0, invalid: 0, faults: 0, problems: 0 };

  constructor(log: LogFn, limits: Partial<BoundedLogLimits> = {}) {
    this.log = new BoundedLog(log, limits);
  }

  /** The typed message of a line a game may send, or undefined (refused or invalid: counted, logged bounded). */
  take(kind: string, payload: unknown): Message | undefined {
    const checked = checkGameLine(kind, payload);
    if (checked.ok) return checked.message;
    const shown = kind.slice(0, 64);
    if (checked.forbidden) {
      this.#counts.refused++;
      this.log.note(`refused:${shown}`, { msg: 'game line skipped', level: 'warn', kind: shown, why: checked.why }, 1);
    } else {
      this.#counts.invalid++;
      this.log.note(`invalid:${shown}`, { msg: 'game line skipped', level: 'warn', kind: shown, why: checked.why });
    }
    return undefined;
  }

  /** A line whose handling threw: skipped, counted, logged bounded. The link and the process go on. */
  fault(kind: string, error: unknown): void {
    this.#counts.faults++;
    const shown = kind.slice(0, 64);
    const text = error instanceof Error ? (error.stack ?? error.message) : String(error);
    this.log.note(`fault:${shown}`, { msg: 'game line skipped: handling it failed', level: 'error', kind: shown, error: text });
  }

  /** A problem of the file link (a line that does not parse, a read error, a replaced file): logged bounded. */
  problem(p: { file: string; offset: number; reason: string }): void {
    this.#counts.problems++;
    this.log.note(`problem:${problemKey(p.reason)}`, { msg: 'file link problem', level: 'warn', ...p });
  }

  counts(): GateCounts {
    return { ...this.#counts };
  }
}

/** A problem's reason without what varies from line to line (offsets, the bad kind's text). */
function problemKey(reason: string): string {
  if (reason.startsWith('bad JSON')) return 'bad JSON';
  if (reason.startsWith('bad kind')) return 'bad kind';
  if (reason.startsWith('file replaced')) return 'file replaced';
  if (reason.startsWith('line longer than')) return 'line too long';
  return reason.replace(/\d+/g, 'N').slice(0, 60);
}
