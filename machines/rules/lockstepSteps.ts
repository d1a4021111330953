// The host lockstep chart's steps as pure functions (spec/lockstep.md; wire-protocol.txt Session 11, PeerClock 12,
// Action 50, BuildVeto 52): each takes the chart's context and returns what to change and what to emit, in the
// order the receivers must see it. The chart (machines/lockstep.ts) applies them from one-line actions. What the
// pause order (machines/pauseOrder.ts) and the games' pacing charts (machines/pacing.ts) report is relayed here.
// This file is their one import (`import * as steps`); each concern is a file of rules/lockstepSteps/: step.ts (the
// Step shape, Session, log once, hop), start.ts (creation, start, lead, pause and speed), games.ts (Hello, return,
// leave), clocks.ts (clocks and the stall pass), relay.ts (an ordinary Action, the host's veto), pause.ts (the pause
// order's actions, stamps and views) and builds.ts (held strict builds, `relayStep`).
export type { Step } from './lockstepSteps/step.ts';
export { hopFor, logOnce, sessionOut } from './lockstepSteps/step.ts';
export {
  DEFAULT_CLOCK_INTERVAL_MS,
  announceLead,
  createLockstepContext,
  enterRunning,
  leadSpeed,
  markStartOutsiders,
  onForbiddenSpeed,
  pauseSession,
  recomputedLead,
  setSpeed,
  speedAllowed,
  startCheckOf,
  startLog,
  startPaused,
  startRunning,
} from './lockstepSteps/start.ts';
export { onHello, onLeave, onReturn } from './lockstepSteps/games.ts';
export type { StallReport } from './lockstepSteps/clocks.ts';
export {
  NO_STALL_PASS,
  latestPeerClocks,
  onClock,
  onReached,
  onStallReport,
  pacingDecidesClock,
  relayClock,
  settleStalls,
} from './lockstepSteps/clocks.ts';
export { onAction, onVeto, slowestTime } from './lockstepSteps/relay.ts';
export { onFlushed, onHeld, pauseActionOf, pauseViewOf, resumeStamp, runningStamp } from './lockstepSteps/pause.ts';
export {
  RESYNC_PARKED_WHY,
  bookHeld,
  closeParkedBuilds,
  commitAsStamped,
  commitUnbooked,
  expireBuilds,
  gameVetoRefusal,
  onBuildCommit,
  onBuildMessageDropped,
  onBuildRefused,
  onGameVeto,
  onGameVetoRefused,
  parkedInRound,
  relayStep,
} from './lockstepSteps/builds.ts';
