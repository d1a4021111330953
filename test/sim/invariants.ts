// The invariants of issue 9 item 3, checked on every simulated session: the games that hold the session's world
// apply the same items at the same stamps in the same order (apply logs), nothing is applied after its stamp, no game
// steps past a peer's promise (its barrier), every action is applied exactly once on every such game or nowhere,
// worlds are equal at every common pause, the session makes progress; and an outsider's actions are refused
// everywhere, its own game included. With checksum rounds and resync rounds running (issues 10 and 11): the checksum
// rounds find no difference where none was injected, an injected divergence is found (named by its part in the next
// round that reads it) and repaired, money never by a reload, a partial apply on the host's game from a player's save.
// A loaded resync save replaces a game's apply log with the saver's (worldLogs). The host's reload modes: its game
// loads a round's save exactly as its mode says, and a host that does not reload has every loaded world (hostReload.ts).
// Each check counts what it looked at (`checks`); a failure names the invariant and its first differing entry.
import { checkHostReload } from './hostReload.ts';
import type { GameRecord } from './simGame.ts';
import type { SessionRun, SimGameSlot } from './session.ts';
import type { InjectedDivergence } from './sessionContext.ts';

export const INVARIANTS = [
  'sameOrder', 'notLate', 'barrier', 'exactlyOnce', 'worldsEqual', 'progress', 'outsiderRefused', 'checksumsAgree', 'detected', 'repaired',
  'hostReload',
] as const;
export type Invariant = (typeof INVARIANTS)[number];

export interface Failure {
  readonly invariant: Invariant;
  readonly detail: string;
}

export interface Verdict {
  readonly failures: Failure[];
  readonly checks: Record<Invariant, number>;
}

const key = (r: { from: number; seq: number }): string => `${r.from}:${r.seq}`;
const entry = (r: GameRecord): string => `t=${r.t} ${r.kind} ${key(r)} stamp=${r.stamp} ${r.ok ? 'applied' : 'refused by the engine'}`;

/** The record was made while its game's world was not the session's (an outsider, back without a catch-up). */
function stale(s: SimGameSlot, r: GameRecord): boolean {
  return (s.staleFrom !== undefined && r.order >= s.staleFrom) || s.staleSpans.some((span) => r.order >= span.from && r.order < span.to);
}

/**
 * Each game's apply log as its world holds it: its applies in order, where a load of a resync save replaces the log
 * with the log of the game that wrote the save, as it stood when it saved (the world it loaded holds exactly those).
 */
export function worldLogs(slots: readonly SimGameSlot[]): Map<SimGameSlot, GameRecord[]> {
  const all = slots.flatMap((slot) => (slot.game?.records ?? []).map((r) => ({ slot, r }))).sort((a, b) => a.r.order - b.r.order);
  const logs = new Map<SimGameSlot, GameRecord[]>(slots.map((s) => [s, []]));
  const saved = new Map<string, GameRecord[]>();
  for (const { slot, r } of all) {
    if (r.what === 'apply') logs.get(slot)!.push(r);
    else if (r.what === 'save') saved.set(r.name!, [...logs.get(slot)!]);
    else if (r.what === 'load') logs.set(slot, [...(saved.get(r.name!) ?? [])]);
  }
  return logs;
}

export function checkRun(run: SessionRun): Verdict {
  const failures: Failure[] = [];
  const checks = Object.fromEntries(INVARIANTS.map((name) => [name, 0])) as Record<Invariant, number>;
  const fail = (invariant: Invariant, detail: string): void => {
    if (!failures.some((f) => f.invariant === invariant)) failures.push({ invariant, detail });
  };
  const world = run.slots.filter((s) => s.holdsWorld && s.game !== undefined);
  const logs = worldLogs(run.slots);
  /** The applied items of a game below a stamp, in the order its world holds them. */
  const appliedBelow = (slot: SimGameSlot, below: number): GameRecord[] => logs.get(slot)!.filter((r) => r.stamp < below);
  // a game whose world stopped being the session's (a divergence injected, a return without a catch-up) and loaded
  // no save since is compared up to there only
  const window = (s: SimGameSlot): number => Math.min(s.window ?? s.endT ?? 0, s.staleT ?? Infinity);
  // After an injected divergence the diverged game's history, and that of every game that loaded a save made from
  // then on, is the repaired session's; a game that left before the repair kept the history before it: two games on
  // either side of that line are compared below the divergence only
  const d = run.divergence;
  const adopted = (s: SimGameSlot): boolean =>
    d !== undefined && (s.index === d.index || (s.game?.records ?? []).some((r) => r.what === 'load' && r.t >= d.t));
  const pairBelow = (a: SimGameSlot, b: SimGameSlot): number =>
    Math.min(window(a), window(b), d !== undefined && adopted(a) !== adopted(b) ? d.t : Infinity);

  // progress
  checks.progress += 1;
  for (const p of run.problems) fail(p.invariant as Invariant, p.detail);

  // notLate: every item applied at its stamp, on every world game (not in the old world a game back without a
  // catch-up runs on until its load)
  for (const s of world) {
    for (const r of s.game!.records) {
      if (r.what !== 'apply' || stale(s, r)) continue;
      checks.notLate += 1;
      if (r.t !== r.stamp) fail('notLate', `${s.plan.name} applied ${key(r)} (${r.kind}) at t=${r.t}, stamp ${r.stamp}`);
    }
  }

  // barrier: recorded online, at every step of a world game
  for (const s of world) {
    checks.barrier += s.stepsChecked;
    const b = s.barrierBreaks[0];
    if (b) fail('barrier', `${s.plan.name} stepped out of t=${b.t} although ${run.slots[b.peer]!.plan.name} promised only ${b.promised}`);
  }

  // sameOrder: the apply logs of every pair, over the stamps both held the world for
  const reference = world[0];
  for (const s of world.slice(1)) {
    const below = pairBelow(reference!, s);
    const a = appliedBelow(reference!, below);
    const b = appliedBelow(s, below);
    const n = Math.max(a.length, b.length);
    for (let i = 0; i < n; i++) {
      checks.sameOrder += 1;
      const x = a[i];
      const y = b[i];
      if (x && y && entry(x) === entry(y)) continue;
      fail('sameOrder', `apply logs of ${reference!.plan.name} and ${s.plan.name} differ at entry ${i} (stamps < ${below}): `
        + `${x ? entry(x) : '(none)'} vs ${y ? entry(y) : '(none)'}`);
      break;
    }
  }

  // exactlyOnce: applied at most once per game; applied by one world game at s => by every world game holding s;
  // an action a world game sent that passed its stamp everywhere is applied or refused, never lost
  const appliedAt = new Map<string, { stamp: number; by: string; slot: SimGameSlot }>();
  for (const s of world) {
    const seen = new Set<string>();
    for (const r of logs.get(s)!) {
      const k = key(r);
      checks.exactlyOnce += 1;
      if (seen.has(k)) fail('exactlyOnce', `${s.plan.name} applied ${k} twice (again at t=${r.t})`);
      seen.add(k);
      if (r.stamp < window(s) && !appliedAt.has(k)) appliedAt.set(k, { stamp: r.stamp, by: s.plan.name, slot: s });
    }
  }
  for (const [k, at] of appliedAt) {
    for (const s of world) {
      if (at.stamp >= pairBelow(at.slot, s)) continue;
      checks.exactlyOnce += 1;
      const mine = logs.get(s)!.find((r) => key(r) === k);
      if (!mine) {
        const refused = s.game!.records.some((r) => r.what === 'refuse' && key(r) === k);
        fail('exactlyOnce', `${at.by} applied ${k} at ${at.stamp}; ${s.plan.name} ${refused ? 'refused it (vetoed)' : 'never applied it'}`);
      }
    }
  }
  for (const s of world) {
    for (const w of s.written?.actions ?? []) {
      if (w.excused || world.some((o) => w.stamp >= window(o))) continue;
      const k = key(w);
      // a parked build the host still held open at the end: its commit or its veto (the 10 s rule) was still to come
      // (seed 3272: a mod reload forgot its own build of the pause 5 s before the end)
      if (run.parkedOpen.has(k)) continue;
      checks.exactlyOnce += 1;
      const anywhere = world.some((o) => o.game!.records.some((r) => key(r) === k && r.what !== 'step'));
      if (!anywhere) fail('exactlyOnce', `${s.plan.name}'s action ${k} stamped ${w.stamp} was neither applied nor refused anywhere`);
    }
  }

  // outsiderRefused: an outsider's actions are applied nowhere, its own game included (a late joiner is one until
  // it loads the session's world: its own game's records before that load)
  for (const o of run.slots.filter((s) => s.game !== undefined && s.id !== undefined && (!s.holdsWorld || s.written?.actions.some((w) => w.outsider)))) {
    checks.outsiderRefused += 1;
    const firstLoad = o.game!.records.find((r) => r.what === 'load')?.order ?? Infinity;
    const own = o.game!.records.find((r) => r.what === 'apply' && r.from === o.id && r.kind === 'action' && r.order < firstLoad);
    if (own) fail('outsiderRefused', `the outsider ${o.plan.name} applied its own action ${key(own)} (stamp ${own.stamp})`);
    for (const w of (o.written?.actions ?? []).filter((x) => x.outsider)) {
      checks.outsiderRefused += 1;
      const k = key(w);
      const applier = [o, ...world].find((s) => s.game!.records.some((r) => r.what === 'apply' && key(r) === k));
      if (applier) fail('outsiderRefused', `the outsider ${o.plan.name}'s action ${k} (stamp ${w.stamp}) was applied on ${applier.plan.name}`);
    }
  }

  // worldsEqual: at every common pause
  for (const p of run.pauses) {
    checks.worldsEqual += p.hashes.length;
    const first = p.hashes[0]!;
    const other = p.hashes.find((h) => h.hash !== first.hash);
    if (other) {
      fail('worldsEqual', `at the pause at t=${p.t}: ${run.slots[first.index]!.plan.name} ${first.hash.slice(0, 12)} vs `
        + `${run.slots[other.index]!.plan.name} ${other.hash.slice(0, 12)}`);
    }
  }
  checkRepairs(run, checks, fail);
  // a doctored run (detected.test.ts) has no record of the rounds' loads
  if (run.reloads) checkHostReload(run.reloads, checks, fail);
  return { failures, checks };
}

/** The checksum rounds and repairs: no difference where none was injected; an injected one found and repaired. */
export function checkRepairs(run: SessionRun, checks: Record<Invariant, number>, fail: (invariant: Invariant, detail: string) => void): void {
  const { differences, repairRequests, rounds } = run.checksums;
  const d = run.divergence;
  checks.checksumsAgree += rounds.identical + rounds.different;
  if (d === undefined) {
    const first = differences[0];
    if (first) fail('checksumsAgree', `checksum round ${first.n} differed with no divergence injected: ${first.parts.map((p) => p.part).join(', ')}`);
    const request = repairRequests[0];
    if (request) fail('checksumsAgree', `a repair was requested with no divergence injected: ${request.reason}`);
    return;
  }
  const slot = run.slots[d.index]!;
  const where = `the divergence injected into ${slot.plan.name} at t=${d.t} (${d.what})`;
  // a world game alone at the end (the others left) has nothing to be compared with: nothing to repair (found: only
  // if a round compared it while it had a peer, checkDetected)
  const alone = run.slots.filter((s) => s.stayed && s.holdsWorld).length < 2;
  if (!alone && d.kind === 'money') {
    const request = repairRequests.find((r) => /money/.test(r.reason));
    if (request) fail('checksumsAgree', `${where}: a repair was requested for money: ${request.reason}`);
  }
  checkDetected(run, d, where, alone, checks, fail);
  if (alone) return;
  // a player that left with its divergence took it away: nothing to repair
  if (!slot.stayed && d.index !== 0) return;
  // repaired: a common pause found the worlds equal again
  checks.repaired += 1;
  if (!d.repaired) {
    fail('repaired', `${where} was not repaired: rounds ${JSON.stringify(rounds)}, repair requests ${JSON.stringify(repairRequests.map((r) => r.reason))}, resyncs ${JSON.stringify(run.resyncs.rounds)}${run.resyncs.last?.failure ? ` (last failed: ${run.resyncs.last.failure})` : ''}`);
  }
  if (d.kind === 'partial') checkRepairSource(run, d, where, checks, fail);
}

type EndedRound = NonNullable<SessionRun['checksums']['ended']>[number];

/**
 * Whether round `r` read game `id`'s world after something that happened to it at its game time `t`, on the clock
 * `at`: a round asked at a later stamp reads it after, at an earlier one before; a running round at `t` reads it in
 * beforeStep(t), after whatever happened while the game stood at t (an injection, a load, an Authority; a partial
 * apply throws inside beforeStep(t), before the round's read there); a paused round at `t` reads it once standing:
 * after when asked after it, before when the game's report reached the host before it, else unsure.
 */
export function roundReads(r: EndedRound, id: number, t: number, at: number): 'after' | 'before' | 'unsure' {
  if (r.at !== t) return r.at > t ? 'after' : 'before';
  if (!r.paused || r.askedAt > at) return 'after';
  const mine = r.reports.find((x) => x.game === id);
  return mine !== undefined && mine.at < at ? 'before' : 'unsure';
}

/**
 * The complete rounds (identical or different) that took the diverged game's report beside another's (`compared`),
 * those of them that may have read its world after the injection, in the order they ended (`reading`: ended after it,
 * not read before it), and the next round: the first of them sure to have read it after (undefined: none). Undefined
 * without a divergence or the host's ended rounds.
 */
export function roundsAfter(run: SessionRun): { compared: EndedRound[]; reading: EndedRound[]; next: EndedRound | undefined } | undefined {
  const d = run.divergence;
  const ended = run.checksums.ended;
  const id = d === undefined ? undefined : run.slots[d.index]!.id;
  if (d === undefined || ended === undefined || id === undefined) return undefined;
  const compared = ended.filter((r) => (r.result === 'identical' || r.result === 'different') && r.reports.length >= 2 && r.reports.some((x) => x.game === id));
  const reading = compared.filter((r) => r.endedAt >= d.at && roundReads(r, id, d.t, d.at) !== 'before');
  return { compared, reading, next: reading.find((r) => roundReads(r, id, d.t, d.at) === 'after') };
}

/**
 * detected (issue 10 item 5): the NEXT round names the divergence's part. The next round is the first complete
 * round (identical or different: a dropped or time_skew one is not, the next complete one counts) that took the
 * diverged game's report and read its world after the injection (roundReads), in the order the rounds ended; it must
 * name the part (`edges` for edges, `money` for money and verdicts, any part for partial), or a round before it that compared the
 * game after the injection named it (a spread round whose chunks read the changed road; a paused round read in the
 * injection's own pause, unsure), or, for partial and verdicts, the differing verdicts asked a repair before it ended.
 * Excused: the world was replaced (a resync save loaded into the diverged game) or corrected (Authority applied on any
 * game, for money and verdicts) before that round read it (roundReads; unsure counts as before the round); the
 * world's own course undid it (a common pause found the whole worlds equal at or before the round's stamp, with no load
 * or Authority until then: seed 59, a command changed the road again); no such round because the diverged game left,
 * or a world game was alone at the end, or such a load or correction came first.
 */
function checkDetected(
  run: SessionRun, d: NonNullable<SessionRun['divergence']>, where: string, alone: boolean,
  checks: Record<Invariant, number>, fail: (invariant: Invariant, detail: string) => void,
): void {
  const { differences, repairRequests } = run.checksums;
  const ended = run.checksums.ended;
  const slot = run.slots[d.index]!;
  const id = slot.id;
  checks.detected += 1;
  if (ended === undefined || id === undefined) {
    fail('detected', `${where}: the host's checksum status keeps no ended rounds (ChecksumStatus.ended) to check it by`);
    return;
  }
  // the host keeps the latest rounds only: every round that ended after the injection must be there
  const total = Object.values(run.checksums.rounds).reduce((a, b) => a + b, 0);
  if (ended.length < total && (ended[0]?.endedAt ?? Infinity) >= d.at) {
    fail('detected', `${where}: the host kept only the last ${ended.length} of ${total} rounds, none from before it`);
    return;
  }
  // A partial apply leaves the host's world with the command's first half and every other world with all of it: the
  // difference is whatever the rest of the command changes (constructions, ids, money…), so any part named counts
  // (seed 424 at the CI sizes: the edge the first half changed was changed by the whole command too).
  const part = d.kind === 'edges' ? 'edges' : d.kind === 'partial' ? undefined : 'money';
  const named = (r: EndedRound): boolean =>
    differences.some((x) => x.n === r.n && x.parts.some((p) => part === undefined || p.part === part));
  const byVerdicts = (until: number): boolean =>
    (d.kind === 'verdicts' || d.kind === 'partial') && repairRequests.some((r) => /^verdicts/.test(r.reason) && r.at >= d.at && r.at <= until);
  const { compared, reading, next } = roundsAfter(run)!;
  const nextIndex = next === undefined ? -1 : reading.indexOf(next);
  // a load replaces the diverged world; or copies it into another game: a save the diverged game made after the
  // injection (a host that does not reload keeps its world and every other game loads it: seed 109 at the CI sizes)
  const copiesIt = (e: InjectedDivergence['since'][number]): boolean => {
    const load = run.slots[e.index]!.game?.records.find((r) => r.what === 'load' && r.order === e.order);
    return load !== undefined && slot.game!.records.some((r) => r.what === 'save' && r.name === load.name && r.order >= d.order);
  };
  const excuses = d.since.filter((e) => (e.what === 'load' && (e.index === d.index || copiesIt(e))) || (e.what === 'authority' && part === 'money'));
  const idOf = (index: number): number => run.slots[index]!.id ?? -1;
  if (next === undefined) {
    // no round read its world after it: it left, it was alone, a load or correction came before any round could, or
    // the world's own course undid it first (seed 165 at full length: the diverged player was away, then a command of
    // the session changed the road again before a round compared its world)
    if (alone || (!slot.stayed && d.index !== 0) || excuses.length > 0 || undoneByOwnCourse(run, d, Infinity)) return;
    fail('detected', `${where}: no complete checksum round compared its world after it (${compared.length} compared it in all)`);
    return;
  }
  if (reading.slice(0, nextIndex + 1).some(named) || byVerdicts(next.endedAt)) return;
  const excuse = excuses.find((e) => roundReads(next, idOf(e.index), e.t, e.at) !== 'before');
  if (excuse !== undefined) return;
  if (undoneByOwnCourse(run, d, next.at)) return;
  if (roadsAgreeAt(run, d, next)) return;
  const later = reading.slice(nextIndex + 1).find(named);
  fail('detected', `${where}: the next checksum round ${next.n} (at ${next.at}${next.paused ? ', paused' : ''}, ${next.result}) did not name ${part ?? 'a part'}`
    + (later ? `; round ${later.n} named it later` : '; no later round named it'));
}

/**
 * The world's own course undid the divergence (a command of the session changed the road again): the first common pause
 * after it that holds the diverged game found the worlds equal (whole-world hashes) at or before `until` (a game time),
 * with no load or Authority anywhere until then.
 */
/**
 * The latest a running round may read a heavy lane after its stamp: a spread round reads its chunks at
 * `at + k·spread·STEP`, at most 20 chunks (the mod's L.CHECKSUM_MAX_CHUNKS) at speed 4. A paused round reads at once.
 */
const SPREAD_READ_SPAN_MS = (20 - 1) * 4 * 200;

/**
 * `edges`: every game that reported the round had given the changed road to the same owner while the round may have
 * read it (at its stamp, or for a running round any time its spread chunks may have been read), a command of the
 * session having undone the divergence. Full-length seeds 404, 430, 519, …: the next round identical, the worlds equal
 * at the next pause, no load in between; seed 327: the road removed on every game at 6600 while round 1, asked at
 * 6200 and spread, read its edges chunk. An apply at the stamp itself is unsure: either order counts.
 */
function roadsAgreeAt(run: SessionRun, d: NonNullable<SessionRun['divergence']>, round: EndedRound): boolean {
  const owners = d.edgeOwners;
  if (d.kind !== 'edges' || owners === undefined) return false;
  // a game's owners by its commands only: from its first load on, the `since` excuses decide
  const byCommands = (index: number) => {
    const history = owners.get(index) ?? [];
    const load = history.findIndex((e) => e.by === 'load');
    return load === -1 ? history : history.slice(0, load);
  };
  const ownerAt = (index: number, before: (t: number) => boolean): string | undefined =>
    byCommands(index).filter((e) => before(e.t)).at(-1)?.owner;
  const indexOf = (game: number) => run.slots.findIndex((slot) => slot.id === game);
  const agree = (before: (t: number) => boolean): boolean => {
    const theirs = round.reports.map((r) => ownerAt(indexOf(r.game), before));
    return theirs.every((o) => o !== undefined && o === theirs[0]);
  };
  const last = round.at + (round.paused ? 0 : SPREAD_READ_SPAN_MS);
  const changes = [...owners.keys()].flatMap((index) => byCommands(index)).map((e) => e.t).filter((t) => t > round.at && t <= last);
  return agree((t) => t < round.at) || [round.at, ...changes].some((at) => agree((t) => t <= at));
}

function undoneByOwnCourse(run: SessionRun, d: NonNullable<SessionRun['divergence']>, until: number): boolean {
  const equal = run.pauses.slice(d.pausesAtInjection).find((p) => p.hashes.some((h) => h.index === d.index));
  return equal !== undefined && equal.hashes.every((h) => h.hash === equal.hashes[0]!.hash) && equal.t <= until && !d.since.some((e) => e.t <= equal.t);
}

/**
 * A partial apply on the host's game repaired from a player's save (spec "Repair source"): the first save the host's
 * game loaded after it was written by a player's game whose world was the session's then; the host's own only when
 * made before the partial apply (a round under way) or when the round said why it could not ask a player (its WARNING).
 */
function checkRepairSource(
  run: SessionRun, d: NonNullable<SessionRun['divergence']>, where: string, checks: Record<Invariant, number>,
  fail: (invariant: Invariant, detail: string) => void,
): void {
  const load = run.slots[d.index]!.game?.records.find((r) => r.what === 'load' && r.order >= d.order);
  if (!d.repaired || load === undefined) return;
  checks.repaired += 1;
  // the last save of that name before the load is the file loaded: a round that asked a player after the host's game
  // had saved (its partial verdict came before its SaveDone) wrote the player's upload over the host's own save
  const saves = run.slots.flatMap((slot) =>
    (slot.game?.records ?? []).filter((r) => r.what === 'save' && r.name === load.name && r.order < load.order).map((save) => ({ saver: slot, save })));
  const last = saves.sort((a, b) => a.save.order - b.save.order).at(-1);
  if (last === undefined) return fail('repaired', `${where}: ${run.slots[d.index]!.plan.name} loaded ${load.name}, which no game saved`);
  const { saver, save } = last;
  if (saver.index === d.index && save.order > d.order && d.hostCopiedBecause === undefined) {
    fail('repaired', `${where} was repaired from ${saver.plan.name}'s own save ${load.name}, made after it, not a player's`);
  }
  else if (saver.index !== d.index && (!saver.holdsWorld || stale(saver, save))) {
    fail('repaired', `${where} was repaired from ${saver.plan.name}'s save ${load.name}, made while its world was not the session's`);
  }
}
