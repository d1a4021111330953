// The host lockstep chart's steps for held strict builds (wire-protocol.txt BuildVeto 52, BuildCommit 53, "Who may
// send what"; rules/heldBuilds.ts): a held or parked build booked as its Action is relayed, a game's BuildCommit
// and BuildVeto judged, relayed or refused, the parked builds refused around a resync round's save and load and
// after 10 s without their BuildCommit. Also `relayStep`, the chart's relay of an ordinary Action (relay.ts
// `onAction`, then the booking). Pure functions of the chart's context (rules/lockstepSteps.ts).
import type { ActionPayload, BuildCommitPayload, BuildVetoPayload } from '../lockstepTypes.ts';
import { record, settle } from '../inFlight.ts';
import { PARKED_COMMIT_MS, book, buildKey, expire, heldKindOf, unbook, vetoLateness } from '../heldBuilds.ts';
import type { BookedBuild } from '../heldBuilds.ts';
import { onAction, onVeto, slowestTime } from './relay.ts';
import { log, logOnce, step } from './step.ts';
import type { Ctx, Out, Step } from './step.ts';

/** A BuildCommit as the stamp rules read it (rules/screen.ts `stampRefusal` reads only the stamp). */
export const commitAsStamped = (payload: BuildCommitPayload): ActionPayload => ({ stamp: payload.stamp, seq: payload.seq, body: null });

/**
 * After an Action was relayed (`relayed`, the step of `onAction`): a held strict build (`body.held`) or a parked one
 * (`body.commit`) is booked, so that a game's veto and its BuildCommit can be judged. An Action that was refused
 * instead is not booked.
 */
export function bookHeld(context: Ctx, relayed: Step, from: number, payload: ActionPayload): Step {
  const kind = heldKindOf(payload);
  if (kind === undefined || payload.stamp === undefined) return relayed;
  if (!relayed.out.some((e) => e.type === 'send.Action')) return relayed;
  const entry: BookedBuild = { owner: from, seq: payload.seq, stamp: payload.stamp, parked: kind === 'parked', since: context.now };
  const made = book(context.builds ?? {}, entry);
  const out = made.evicted === undefined ? relayed.out
    : [...relayed.out, log({ msg: 'held build forgotten: too many open', owner: made.evicted.owner, seq: made.evicted.seq })];
  return step({ ...relayed.patch, builds: made.book }, out);
}

/**
 * The chart's `relayAction`: an ordinary Action relayed (onAction), then its held build booked (bookHeld). Also what
 * the host's shortcut for an ordinary Action runs (machines/lockstepShortcut.ts): one step for both.
 */
export function relayStep(context: Ctx, from: number, payload: ActionPayload, wall: number | undefined): Step {
  return bookHeld(context, onAction(context, from, payload, wall), from, payload);
}

/**
 * A BuildCommit the host accepted (its owner, ready, in the session's world, stamped at or above its promise or at
 * its announced `need`, of a parked build still booked): relayed with `from` to every game, its origin included.
 * The origin applies its own build only on this copy, as it does its own Action (docs/DECISIONS.md "BuildCommit goes
 * to its origin too"): a host veto that crossed the commit (the 10 s rule, a stall) then reaches every game in the
 * same order relative to it.
 */
export function onBuildCommit(context: Ctx, from: number, payload: BuildCommitPayload): Step {
  const relayed: BuildCommitPayload = { seq: payload.seq, owner: payload.owner, stamp: payload.stamp, from };
  const builds = unbook(context.builds ?? {}, payload.owner, payload.seq);
  const inFlight = record(settle(context.inFlight, slowestTime(context.games)).inFlight, from, payload.stamp);
  return step({ builds, inFlight }, [{ type: 'send.BuildCommit', to: 'all', payload: relayed }]);
}

/** Why a BuildCommit the guards let through is still refused: no parked build of that number is booked. */
export function commitUnbooked(context: Ctx, payload: BuildCommitPayload): string | undefined {
  const build = (context.builds ?? {})[buildKey(payload.owner, payload.seq)];
  if (build === undefined || !build.parked) return 'no parked build of that number waits (unknown, vetoed or past 10 s)';
  return undefined;
}

/** A host veto of a parked build: it is taken out of the book (a later BuildCommit of it is refused too). */
export function onBuildRefused(context: Ctx, owner: number, seq: number, why: string): Step {
  const vetoed = onVeto(context, owner, seq, why);
  return step({ ...vetoed.patch, builds: unbook(context.builds ?? {}, owner, seq) }, vetoed.out);
}

/**
 * A game's BuildVeto of another game's held build, in time (rules/heldBuilds.ts `vetoLateness`): relayed with `from`
 * and `name` set by the host and `host` cleared, to every game, the vetoer included (docs/DECISIONS.md "A game's
 * BuildVeto goes to the vetoer too": a vetoer keeps a parked build parked until its veto comes back, since a commit
 * the host relayed first wins; a held build it dropped when it vetoed, in time); the build leaves the book.
 */
export function onGameVeto(context: Ctx, from: number, payload: BuildVetoPayload, name: string): Step {
  const relayed: BuildVetoPayload = { seq: payload.seq, owner: payload.owner, why: payload.why, from, name };
  const builds = unbook(context.builds ?? {}, payload.owner, payload.seq);
  const entry = log({ msg: 'build veto relayed', from, owner: payload.owner, seq: payload.seq });
  return step({ builds }, [{ type: 'send.BuildVeto', to: 'all', payload: relayed }, entry]);
}

/** Why a game's BuildVeto is dropped instead of relayed, if it is. */
export function gameVetoRefusal(context: Ctx, from: number, payload: BuildVetoPayload): string | undefined {
  const game = context.games[from];
  if (game?.ready !== true) return 'the game is not ready';
  if (!game.hasWorld) return "the game's world is not the session's yet";
  if (payload.owner === from) return 'a game does not veto its own build';
  // A stalled vetoer: the others pace to the host's promise for it, so that is how far it may have let them run.
  const safe = game.bestSafe ?? game.clock?.safe;
  const promised = game.stalled === undefined ? safe : Math.max(game.stalled.promise, safe ?? 0);
  return vetoLateness(context.builds ?? {}, payload.owner, payload.seq, promised);
}

/**
 * A game's BuildVeto the host does not relay (`gameVetoRefusal`): logged once per game and reason, and answered to
 * the vetoer alone with the same BuildVeto marked `late: true` (docs/DECISIONS.md "Every game veto is answered"): a
 * vetoer keeps a held build it vetoed in its queue, holding its barrier at the stamp, until the host answers: the
 * relayed veto (dropped on every game, the vetoer included) or this one (too late: the vetoer applies it at its
 * stamp, as the games that may have applied it already). Any other way to be refused (another game's veto relayed
 * first, the host's veto, the build committed) reaches the vetoer before this answer, on its one ordered path.
 */
export function onGameVetoRefused(context: Ctx, from: number, payload: BuildVetoPayload, why: string, name: string): Step {
  const dropped = onBuildMessageDropped(context, 'BuildVeto', from, payload, why);
  const answer = { seq: payload.seq, owner: payload.owner, why: why.slice(0, 300), from, name, late: true as const };
  return step(dropped.patch, [{ type: 'send.BuildVeto', to: from, payload: answer }, ...dropped.out]);
}

/** A dropped BuildVeto or BuildCommit: logged once per game and reason. */
export function onBuildMessageDropped(context: Ctx, kind: 'BuildVeto' | 'BuildCommit', from: number, payload: { owner: number; seq: number }, why: string): Step {
  return logOnce(context, `${kind}-dropped:${from}:${why}`, { msg: `${kind} dropped`, from, owner: payload.owner, seq: payload.seq, why });
}

/** Why the host refuses parked builds around a resync round's save and load (`closeParkedBuilds`, `parkedInRound`). */
export const RESYNC_PARKED_WHY = 'a resync round saves and loads the world';

/**
 * A resync round starts Saving (`resync.stamps` held): every parked build still open is refused on every game with
 * the host's BuildVeto, its originator included, before the ResyncSave and the load. Parked builds (and a held build
 * of the pause not committed yet) live in the mod's session state, not in the world nor in the queue a load carries
 * over: a game that loads forgets them, one that does not (the host's game as the source) would keep them, and a
 * commit after the load would be applied by its originator alone. The simulator's `heldBuilds` workload found the build
 * lost on every game without a verdict (CI sizes, seed 20: `exactlyOnce: p2's action 1:4 stamped 2200 was neither
 * applied nor refused anywhere`). Each game reads this veto before its load line (the host holds a participant's
 * messages only from the announcement on), so every one refuses the build.
 */
export function closeParkedBuilds(context: Ctx): Step {
  return refuseParked(context, () => true, RESYNC_PARKED_WHY);
}

/** Refuses the parked builds `which` picks on every game with the host's BuildVeto (`why`): out of the book. */
function refuseParked(context: Ctx, which: (build: BookedBuild) => boolean, why: string): Step {
  const open = Object.values(context.builds ?? {}).filter((b) => b.parked && which(b));
  if (open.length === 0) return step();
  let builds = context.builds ?? {};
  const out: Out[] = [];
  for (const build of open) {
    out.push(...onVeto(context, build.owner, build.seq, why).out);
    builds = unbook(builds, build.owner, build.seq);
  }
  return step({ builds }, out);
}

/** A parked build's record (`body.commit`) while a resync round saves or loads the world: refused (see above). */
export function parkedInRound(context: Ctx, payload: ActionPayload): boolean {
  return context.stampsHeld === true && heldKindOf(payload) === 'parked';
}

/** Why the host refuses the parked builds of a game that left or dropped (`closeParkedOf`). */
export const LEFT_PARKED_WHY = 'its player left or dropped before its BuildCommit';

/**
 * A game left the lockstep (dropped and away, or released): every parked build it made is refused on every game with
 * the host's BuildVeto, in the same step, after the PlayerLeft the session sent first. The other games dropped its
 * parked records at that PlayerLeft (mod: H.PlayerLeft; they only log this veto); its own game, which holds the build
 * of the pause and gives it up after a while expecting the host's veto, reads this one on its return (the away
 * player's outbox keeps it) and refuses its build. Until 2026-12-02 the book forgot such builds silently at the next
 * tick: the originator never learned the build was dropped everywhere (simulator seed 3235: `exactlyOnce: p1's action
 * 1:2 … neither applied nor refused anywhere`), and a game back before that tick could have its commit relayed to
 * games that had dropped the record.
 */
export function closeParkedOf(context: Ctx, owner: number): Step {
  return refuseParked(context, (b) => b.owner === owner, LEFT_PARKED_WHY);
}

/**
 * A tick: the parked builds whose BuildCommit has not come within PARKED_COMMIT_MS are refused on every game with
 * the host's BuildVeto (the one clock that decides the 10 s rule); the held builds every game has passed are
 * forgotten. (A game that leaves has its parked builds refused then: `closeParkedOf`.)
 */
export function expireBuilds(context: Ctx): Step {
  const current = context.builds;
  if (current === undefined || Object.keys(current).length === 0) return step();
  const { book: next, expired } = expire(current, context.now, slowestTime(context.games));
  if (next === current) return step();
  const out: Out[] = [];
  for (const build of expired) {
    out.push(...onVeto(context, build.owner, build.seq, `no BuildCommit within ${PARKED_COMMIT_MS / 1000} s`).out);
  }
  return step({ builds: next }, out);
}
