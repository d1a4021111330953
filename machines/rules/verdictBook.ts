// The verdict book (spec "Action verdicts"): every game sends its verdict of every action at its stamp (ActionRefused
// 36: applied, or refused with a class). Identical worlds refuse identically, so a refusal alone asks for nothing; the
// host keeps each action's verdicts until every ready game has answered, and as soon as two games answer differently
// (one applied it, another refused it) the worlds have forked at that action: the policy asks for a repair at once
// (rules/checksumPolicy.ts `verdictsDiffer`). At most 256 actions are open (the oldest is forgotten first); a resync
// forgets every open action. Pure: no clock.

/** Open actions the book holds at most. */
export const MAX_OPEN_ACTIONS = 256;

/** The key of action from:seq, as the spec names it (`verdicts of <from:seq> differ`). */
export const actionKey = (from: number, seq: number): string => `${from}:${seq}`;

export interface OpenAction {
  from: number;
  seq: number;
  /** Game id → applied (true) or refused (false). */
  verdicts: ReadonlyMap<number, boolean>;
}

export interface VerdictBook {
  /** Open actions by key, oldest first. */
  open: ReadonlyMap<string, OpenAction>;
  /** Keys of actions closed lately (at most MAX_OPEN_ACTIONS): a late verdict of one opens nothing. */
  closed: readonly string[];
}

export interface VerdictStep {
  book: VerdictBook;
  /** The verdicts of this action differ: which games applied it and which refused it. */
  differ?: { key: string; applied: number[]; refused: number[] };
  /** Every ready game answered alike: the action is closed. */
  agreed?: string;
  /** The oldest open action was forgotten to keep the bound. */
  evicted?: string;
}

export function createVerdictBook(): VerdictBook {
  return { open: new Map(), closed: [] };
}

function close(book: VerdictBook, key: string): VerdictBook {
  const open = new Map(book.open);
  open.delete(key);
  return { open, closed: [...book.closed, key].slice(-MAX_OPEN_ACTIONS) };
}

function split(verdicts: ReadonlyMap<number, boolean>): { applied: number[]; refused: number[] } {
  const applied: number[] = [];
  const refused: number[] = [];
  for (const [game, ok] of [...verdicts].sort((a, b) => a[0] - b[0])) (ok ? applied : refused).push(game);
  return { applied, refused };
}

const answeredByAll = (action: OpenAction, ready: readonly number[]): boolean => ready.every((id) => action.verdicts.has(id));

/** Game `game`'s verdict of action from:seq; `ready` are the ready games whose verdicts are awaited. */
export function recordVerdict(
  book: VerdictBook,
  game: number,
  verdict: { from: number; seq: number; applied: boolean },
  ready: readonly number[],
): VerdictStep {
  const key = actionKey(verdict.from, verdict.seq);
  if (book.closed.includes(key)) return { book };
  const known = book.open.get(key);
  if (known?.verdicts.has(game)) return { book }; // one verdict per game: the first counts
  const action: OpenAction = {
    from: verdict.from,
    seq: verdict.seq,
    verdicts: new Map([...(known?.verdicts ?? []), [game, verdict.applied]]),
  };
  const { applied, refused } = split(action.verdicts);
  if (applied.length > 0 && refused.length > 0) return { book: close(book, key), differ: { key, applied, refused } };
  if (answeredByAll(action, ready)) return { book: close(book, key), agreed: key };
  const open = new Map(book.open);
  open.delete(key);
  open.set(key, action);
  let evicted: string | undefined;
  if (open.size > MAX_OPEN_ACTIONS) {
    evicted = open.keys().next().value as string;
    open.delete(evicted);
  }
  return { book: { open, closed: book.closed }, ...(evicted === undefined ? {} : { evicted }) };
}

/** The ready games changed (one left or reloaded): actions every remaining ready game answered alike are closed. */
export function readyChanged(book: VerdictBook, ready: readonly number[]): { book: VerdictBook; agreed: string[] } {
  const agreed = [...book.open].filter(([, action]) => answeredByAll(action, ready)).map(([key]) => key);
  let next = book;
  for (const key of agreed) next = close(next, key);
  return { book: next, agreed };
}

/** A resync forgets every open action. */
export function forgetAll(): VerdictBook {
  return createVerdictBook();
}
