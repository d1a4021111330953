// What the pieces of one simulated session share (session.ts makes it): the clock and its driver, the in-memory
// network and folders, the host's session with its lockstep, checksum and resync rounds, the game slots, what the
// run found and went through, and the state the pieces hand each other (games reloading their mod, players away
// after a drop, the plan's injected divergence, when the timeline started, whether the final pause began).
import type { HostChecksums } from '../../actors/host/checksums.ts';
import type { HostLockstep } from '../../actors/host/hostLockstep.ts';
import type { HostResync } from '../../actors/host/resync.ts';
import type { HostSession } from '../../actors/host/hostSession.ts';
import type { LogFn } from '../../actors/ports.ts';
import type { Crypto } from '../../protocol/crypto.ts';
import type { ManualClock } from '../../adapters/clock.ts';
import type { MemoryFs } from '../../adapters/fileLink/memoryFs.ts';
import type { MemoryNetwork } from '../../adapters/transport/memory.ts';
import type { SimDriver } from './driver.ts';
import type { ReloadRecord } from './hostReload.ts';
import type { FromGameLogs } from './fromGameLog.ts';
import type { DivergenceKind, Plan } from './plan.ts';
import type { SessionOptions, SessionRun, SimGameSlot } from './session.ts';

/** The host's address on the in-memory network (it listens on port 7000). */
export const HOST_ADDRESS = '10.0.0.1';

/** The plan's divergence once injected: it stands until a common pause finds the worlds equal again (repaired). */
export interface InjectedDivergence {
  index: number;
  kind: DivergenceKind;
  at: number;
  t: number;
  repaired: boolean;
  what: string;
  /** The `order` the games' next record had when it was injected (a load from then on may have repaired it). */
  order: number;
  /** `partial`: why a round copied the host's world although it was marked (the host's WARNING), if one did. */
  hostCopiedBecause?: string;
  /**
   * What replaced or corrected a world from the injection on (the `detected` check's excuses): a resync save loaded
   * (`load`) or the host's Authority values taken (`authority`) by the game of slot `index`, at its game time `t`, on
   * the clock `at` (the host's clock: a round asked after it reads the world after it), with the record's `order`.
   */
  readonly since: { index: number; what: 'load' | 'authority'; t: number; at: number; order: number }[];
  /** Common pauses compared before it (SessionRun.pauses): the first one after it found the worlds equal again. */
  readonly pausesAtInjection: number;
  /**
   * `edges`: the changed road's owner in each world game (by slot index) from the injection on, one entry per change
   * by an apply, and one per load, with the game time of the record (the first one: its owner then). A command of the
   * session may give the road to the same owner on every game, which undoes the divergence (the `detected` check's
   * excuse); a load is the `since` excuses' matter.
   */
  edgeOwners?: Map<number, { t: number; owner: string; by?: 'apply' | 'load' }[]>;
}


export interface SimSession {
  readonly plan: Plan;
  readonly options: SessionOptions;
  readonly clock: ManualClock;
  readonly driver: SimDriver;
  readonly crypto: Crypto;
  readonly log: LogFn;
  /** Keeps a line in the run's tail (its failure report). */
  readonly note: (text: string) => void;
  readonly problems: SessionRun['problems'];
  readonly happened: Set<string>;
  readonly pauses: SessionRun['pauses'];
  readonly net: MemoryNetwork;
  readonly fs: MemoryFs;
  readonly written: FromGameLogs;
  readonly slots: SimGameSlot[];
  /** The game that applies one action one step late (`fault: 'fork'`), else -1. */
  readonly faultIndex: number;
  /** Each game's savegame folder (a resync round's saves are real files). */
  readonly savesOf: (slot: SimGameSlot) => string;
  readonly savedItems: Map<string, number>;
  readonly host: HostSession;
  readonly lockstep: HostLockstep;
  readonly checksums: HostChecksums;
  readonly resync: HostResync;
  /** What the resync rounds did with the games' worlds (the host's reload modes: hostReload.ts). */
  readonly reloads: ReloadRecord;
  readonly lockstepContext: () => ReturnType<HostLockstep['actor']['getSnapshot']>['context'];
  readonly lockstepState: () => string;
  /** Games reloading their mod (they neither frame nor click meanwhile). */
  readonly reloading: Set<SimGameSlot>;
  /** Until when the plan keeps a dropped player from reaching the host. */
  readonly downUntil: Map<SimGameSlot, number>;
  /** Players between a drop and their resume (a drop during a resume is the same episode). */
  readonly away: Set<SimGameSlot>;
  divergence: InjectedDivergence | undefined;
  /** The clock time the session started at (the timeline's zero; 0 before). */
  startAt: number;
  /** The final pause began: the timeline runs no more. */
  finishing: boolean;
}

/** What it wrote so far was made in a world that is not the session's (see WrittenAction.excused). */
export function excuseWritten(slot: SimGameSlot): void {
  for (const w of slot.written?.actions ?? []) w.excused = true;
}
