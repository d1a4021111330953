// The host lockstep chart's guards (machines/lockstep.ts names them in `setup`; spec/lockstep.md, wire-protocol.txt
// Hello 10, Clock 31, SpeedRequest 32, Action 50, BuildVeto 52, BuildCommit 53, docs/SECURITY.md §8): whether the
// session may start and why it waits, which speed a request asks for, and why a game's Hello, Clock, Action,
// BuildCommit or BuildVeto is refused instead of relayed. Each reads the chart's context and the event's fields
// (the chart passes the event as params); the rules are in rules/screen.ts and rules/lockstepSteps.ts. Also the
// params of the refusals the chart writes (`veto`, `commitVeto`).
import type { LockstepContext } from './lockstepContext.ts';
import { clockRefusal, helloRefusal, stampRefusal } from './rules/screen.ts';
import * as steps from './rules/lockstepSteps.ts';
import { SPEEDS } from './rules/lockstepTypes.ts';
import type {
  ActionPayload,
  BuildCommitPayload,
  BuildVetoPayload,
  ClockPayload,
  HelloPayload,
  Speed,
} from './rules/lockstepTypes.ts';

/** What a guard reads of the chart's state. */
type Args = { context: LockstepContext };

export const lockstepGuards = {
  startRequested: ({ context }: Args) => context.startRequested,
  mayStart: ({ context }: Args) => steps.startCheckOf(context).ok,
  startsPaused: ({ context }: Args) => context.session.startSpeed === 0,
  waitingReasonChanged: ({ context }: Args) => {
    const check = steps.startCheckOf(context);
    return context.startRequested && !check.ok && check.waiting !== context.waiting;
  },
  validSpeed: (_: Args, p: { speed: number }) => (SPEEDS as readonly number[]).includes(p.speed),
  speedForbidden: ({ context }: Args, p: { from: number }) => !steps.speedAllowed(context, p.from),
  requestsPause: (_: Args, p: { speed: Speed }) => p.speed === 0,
  requestsSpeedInForce: ({ context }: Args, p: { speed: Speed }) => p.speed === context.session.speed,
  requestsStartSpeed: ({ context }: Args, p: { speed: Speed }) => p.speed === context.session.startSpeed,
  fromStranger: ({ context }: Args, p: { from: number }) => context.games[p.from]?.ready !== true,
  fromOutsider: ({ context }: Args, p: { from: number }) => context.games[p.from]?.hasWorld === false,
  isPauseAction: (_: Args, p: { payload: ActionPayload }) => p.payload.pause === true,
  hasNoStamp: (_: Args, p: { payload: ActionPayload }) => p.payload.stamp === undefined,
  helloRefused: (_: Args, p: { payload: HelloPayload }) => helloRefusal(p.payload) !== undefined,
  clockRefused: (_: Args, p: { payload: ClockPayload }) => clockRefusal(p.payload) !== undefined,
  stampRefused: ({ context }: Args, p: { from: number; payload: ActionPayload }) =>
    stampRefusal(context.games[p.from], p.payload) !== undefined,
  replaysClocks: (_: Args, p: { replay: boolean }) => p.replay,
  parkedInRound: ({ context }: Args, p: { payload: ActionPayload }) => steps.parkedInRound(context, p.payload),
  commitNotOwner: (_: Args, p: { from: number; payload: BuildCommitPayload }) => p.payload.owner !== p.from,
  commitBelowStallPromise: ({ context }: Args, p: { from: number; payload: BuildCommitPayload }) => {
    const mark = context.games[p.from]?.stalled;
    return mark !== undefined && p.payload.stamp < mark.promise;
  },
  commitStampRefused: ({ context }: Args, p: { from: number; payload: BuildCommitPayload }) =>
    stampRefusal(context.games[p.from], steps.commitAsStamped(p.payload)) !== undefined,
  commitUnbooked: ({ context }: Args, p: { payload: BuildCommitPayload }) => steps.commitUnbooked(context, p.payload) !== undefined,
  gameVetoRefused: ({ context }: Args, p: { from: number; payload: BuildVetoPayload }) =>
    steps.gameVetoRefusal(context, p.from, p.payload) !== undefined,
  belowStallPromise: ({ context }: Args, p: { from: number; payload: ActionPayload }) => {
    const mark = context.games[p.from]?.stalled;
    return mark !== undefined && (p.payload.stamp ?? 0) < mark.promise;
  },
};

/** The host's refusal of a BuildCommit: its build (owner:seq) is refused on every game. */
export function commitVeto(event: { payload: BuildCommitPayload }, why: string) {
  return { owner: event.payload.owner, seq: event.payload.seq, why };
}

/** The host's refusal of an Action: `from:seq` is refused on every game, its origin included. */
export function veto(event: { from: number; payload: ActionPayload }, why: string) {
  return { from: event.from, seq: event.payload.seq, why };
}
