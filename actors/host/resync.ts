// The host's resync actor: runs the resync round chart (machines/resync.ts, systemId `resync`) beside the HostSession,
// the lockstep and the checksum rounds (spec wire-protocol.txt "Resync round" up to "Hot join"; issue 11). It feeds
// the chart the roster, the session's start and speed, whom the pause still waits for (read from the lockstep at each
// tick), the saving game's SaveDone, the launcher's resync_file_ready (the `files` port hashes the save), each
// participant's finished transfer and the Hellos; and it does what the chart emits: the pause (the lockstep's pause
// order), ResyncSave, the chunks (the `files` port, sealed once), the hold of what is made for a participant while
// the save travels, ResyncLoad then the held messages, the verification round (checksums.ts), the previous speed after
// a verified round, Session `resync`/`loading` on every state change, and ResyncFailed (logged, a chat notice, the
// session left paused). A repair request of the checksum policy starts a round (autoResync).
import { createActor } from 'xstate';
import { RESYNC_SYSTEM_ID, resyncMachine } from '../../machines/resync.ts';
import { sessionOf } from '../../machines/lockstep.ts';
import { HOST_GAME, namesOf, resyncSaveName } from '../../machines/rules/resyncRound.ts';
import { LIMITS, type Payloads } from '../../protocol/messages/index.ts';
import { codePoints } from '../../protocol/messages/schema.ts';
import type { ConnectionHandle } from '../connectionActor.ts';
import type { Clock, LogFn } from '../ports.ts';
import { guarded, stackOf, startTicker } from '../supervise.ts';
import type { HostChecksums } from './checksums.ts';
import type { HostLockstep } from './hostLockstep.ts';
import { attachRelayLedger, saveTime } from './relayLedger.ts';
import type { HostSession } from './hostSession.ts';
import type { InspectionObserver } from './hostTypes.ts';
import {
  RESYNC_SOURCE_CAPABILITY,
  uploadFrameBound,
  type HostResync,
  type HostResyncOptions,
  type ResyncFiles,
  type ResyncStatus,
  type ResyncTransfer,
  type TransferProgress,
} from './resyncTypes.ts';

// The ports and views live in resyncTypes.ts; callers import them from here as well.
export * from './resyncTypes.ts';

export function attachResync(
  host: HostSession,
  lockstep: HostLockstep,
  checksums: HostChecksums,
  ports: { clock: Clock; log: LogFn; inspect?: InspectionObserver; files?: ResyncFiles },
  options: HostResyncOptions = {},
): HostResync {
  const { clock, log, files } = ports;
  const inspect = ports.inspect && guarded(log, 'inspect', ports.inspect);
  const input = {
    ...(options.hostReloads === undefined ? {} : { hostReloads: options.hostReloads }),
    ...(options.hostLoadsEarly === undefined ? {} : { hostLoadsEarly: options.hostLoadsEarly }),
  };
  // Attached after the lockstep's own listeners: each item's text is the one its broadcast just sealed.
  const ledger = attachRelayLedger(lockstep, log, (kind, payload) => host.textOf(kind, payload));
  const actor = createActor(options.machine ?? resyncMachine, { clock, systemId: RESYNC_SYSTEM_ID, input, ...(inspect ? { inspect } : {}) });
  const status: ResyncStatus = { rounds: { verified: 0, failed: 0 }, state: 'Idle', id: 0 };
  const context = () => actor.getSnapshot().context;
  const inRound = () => actor.getSnapshot().matches('Round');
  // A player coming back while a round runs is not caught up: the round's load replaces the world it would catch up in.
  host.resyncRunning = inRound;
  let transfer: ResyncTransfer | undefined;
  let lastTransfer: TransferProgress | undefined;
  let byPolicy = false;
  let failure: string | undefined;
  /** Games that applied a command partly while a round ran that will not load over their world: marked past its end. */
  const partialAfterLoad = new Set<number>();

  // Session `resync` while a round runs (and `loading` while it loads), in Welcome, the status and every broadcast.
  const base = host.sessionPayload;
  let round: Pick<Payloads['Session'], 'resync' | 'loading'> = {};
  host.useSessionSource(() => ({ ...base(), ...round }));

  const on = <T extends Parameters<typeof actor.on>[0]>(type: T, fn: Parameters<typeof actor.on<T>>[1]) =>
    actor.on(type, guarded(log, `resync ${type}`, fn as (e: unknown) => void));
  on('out.progress', (e) => {
    // Nothing is stamped from Saving to the end of Loading (spec "The pause after the load").
    const stampsHeld = e.state === 'Saving' || e.state === 'Transferring' || e.state === 'Loading';
    if (stampsHeld !== (status.state === 'Saving' || status.state === 'Transferring' || status.state === 'Loading')) lockstep.holdStamps(stampsHeld);
    status.state = e.state;
    status.id = e.id;
    status.reason = e.reason;
    if (e.state === 'Idle') {
      round = {};
      const result = e.result ?? 'verified';
      status.rounds[result]++;
      status.last = { id: e.id, reason: e.reason, result, ...(failure ? { failure } : {}) };
      failure = undefined;
    } else {
      // The reason may quote a game's detail: cut to what Session.resync carries (a longer one would be dropped).
      const reason = codePoints(e.reason, LIMITS.detailChars) > LIMITS.detailChars ? [...e.reason].slice(0, LIMITS.detailChars).join('') : e.reason;
      round = { resync: { id: e.id, state: e.state, reason }, ...(e.loading ? { loading: [...e.loading] } : {}) };
      if (e.state === 'Pausing') {
        checksums.repairStarted(byPolicy);
        byPolicy = false;
      }
    }
    log({ msg: `resync ${e.id}: ${e.state}`, reason: e.reason, ...(e.participants ? { participants: e.participants } : {}), ...(e.loading ? { loading: e.loading } : {}), ...(e.result ? { result: e.result } : {}) });
    host.broadcast('Session', host.sessionPayload());
    if (e.state === 'Transferring') fileReady(e.id);
  });
  on('out.pause', () => lockstep.pause());
  on('out.save', (e) => host.sendTo(e.to, 'ResyncSave', { id: e.id, name: e.name }));
  on('out.sourceWarning', (e) => {
    log({ msg: `WARNING: resync ${e.id}: ${e.text}`, level: 'warn' });
    host.chat(`[FeverLink3] ${e.text}`, 'warn');
  });
  on('out.sourceMarked', (e) => {
    log({ msg: `resync ${e.id}: ${e.names} applied an action partly before its save; the round asks another game for its save`, from: e.from, level: 'warn' });
  });
  on('out.announced', (e) => {
    const { hostReloads, hostLoadsEarly } = context();
    host.hold([...e.participants, ...(hostReloads && !hostLoadsEarly ? [0] : [])]);
    if (e.participants.length === 0 || !files) return;
    const participants = new Map<number, ConnectionHandle>();
    for (const id of e.participants) {
      const conn = host.connectionOf(id);
      if (conn) participants.set(id, conn);
    }
    transfer = files.send({ id: e.id, name: saveName(e.id), sha256: e.sha256, bytes: e.bytes, participants, onPeerDone: (player) => actor.send({ type: 'transfer.done', id: e.id, player }) });
    // A participant without a connection any more has nothing to wait for: the roster's leave removes it.
  });
  on('out.load', (e) => {
    // after the load line: what the save does not hold of what was relayed (a returner or a joiner missed some of it);
    // the save was made where the saving game stands, at or past the session's pauseAt (the round's own pauseAt is a
    // previous round's until a Hello)
    const lockstepContext = lockstep.actor.getSnapshot().context;
    const savedAt = saveTime(lockstepContext, sessionOf(lockstepContext).pauseAt, context().source);
    const unsaved = savedAt === undefined ? [] : ledger.since(savedAt);
    for (const to of e.to) {
      host.sendTo(to, 'ResyncLoad', { id: e.id, name: e.name, sha256: e.sha256 });
      for (const m of unsaved) host.sendTo(to, m.kind, m.payload as never);
      host.releaseHeld(to);
    }
  });
  on('out.pauseAt', (e) => {
    lockstep.movePause(e.time);
    if (e.differ) log({ msg: `resync ${e.id}: the games loaded at different times; pauseAt ${e.time} (the furthest)`, from: e.from, level: 'warn' });
  });
  on('out.loadingTimedOut', (e) => {
    log({ msg: `resync ${e.id}: no hello after the load from ${e.names} in 600 s; going on with the others`, level: 'warn', missing: e.missing });
  });
  on('out.verify', (e) => {
    const pauseAt = context().pauseAt ?? sessionOf(lockstep.actor.getSnapshot().context).pauseAt;
    if (pauseAt === undefined) return log({ msg: `resync ${e.id}: no pauseAt to verify at`, level: 'error' });
    checksums.verify(pauseAt, (r) => {
      if (r.result === 'identical') actor.send({ type: 'checksum.verified' });
      else if (r.result === 'different') actor.send({ type: 'checksum.differs', detail: `parts ${r.parts.join(', ')}` });
      else log({ msg: `resync ${e.id}: the verification round ended ${r.result}`, level: 'warn' });
    });
  });
  on('out.succeeded', (e) => {
    log({ msg: `resync ${e.id} verified: every game loaded the same world`, speed: e.speed });
    // the round's end clears the marks (its load replaced the partly built worlds), but not of a world it did not load over
    for (const id of partialAfterLoad) actor.send({ type: 'game.partial', id });
    endRound();
    if (e.speed > 0) lockstep.speed(e.speed);
  });
  on('out.failed', (e) => {
    failure = e.reason;
    log({ msg: `ResyncFailed: resync ${e.id} failed in ${e.state}: ${e.reason}; the session stays paused`, level: 'error', missing: e.missing });
    host.chat(`[FeverLink3] the resync failed: ${e.reason}; the session stays paused`, 'error');
    endRound();
  });
  on('out.ignored', (e) => log({ msg: `resync ${e.id}: ignored ${e.what}`, ...(e.from === undefined ? {} : { from: e.from }) }));
  actor.subscribe({
    error: (err) => {
      log({ msg: 'resync failed', stack: stackOf(err) });
      options.onFailure?.(err);
    },
  });

  const saveName = resyncSaveName;
  /** resync_file_ready: the launcher reads the host's save (its hash and length) and announces it. */
  function fileReady(id: number): void {
    if (!files) return log({ msg: `resync ${id}: this host has no save folder; the round cannot announce a file`, level: 'error' });
    files.digest(saveName(id)).then(
      (d) => actor.send({ type: 'cmd.fileReady', id, sha256: d.sha256, bytes: d.bytes }),
      (err: unknown) => log({ msg: `resync ${id}: the save could not be read`, level: 'error', error: String(err) }),
    );
  }
  /**
   * The exemption of the round's upload from the rate limits (spec "Repair source": ResyncUpload frames are not counted
   * against the frame limits): its own cap is the save the first chunk declared (its count and SHA-256): each index
   * once, at most `count` (<= 2048) frames, each at most uploadFrameBound(its data) bytes.
   */
  let exempt: { id: number; count: number; sha256: string; indices: Set<number> } | undefined;
  /** A chunk of the repair source's save: only from the round's source while its upload is awaited. */
  function upload(from: number, chunk: Payloads['ResyncUpload']): void {
    const snapshot = actor.getSnapshot();
    const c = snapshot.context;
    if (from !== c.source || chunk.id !== c.id || !snapshot.matches({ Round: { Saving: 'Uploading' } }) || !files?.receive) {
      log({ msg: `resync ${c.id}: upload chunk ignored`, from, id: chunk.id, index: chunk.index });
      return;
    }
    uncount(from, chunk);
    files.receive(chunk, (id) => actor.send({ type: 'source.uploaded', id }));
  }
  /**
   * An upload the host asked for (checked by `upload`; its tag verified, or it would not have been opened): its frame
   * is given back to the source's connection while it stays within the exemption's cap. Anything else still counts:
   * a duplicate index, a chunk of another count or SHA-256 than the first, padding beyond the chunk's own size.
   */
  function uncount(from: number, chunk: Payloads['ResyncUpload']): void {
    const sha256 = chunk.sha256.toLowerCase();
    if (exempt?.id !== chunk.id) exempt = { id: chunk.id, count: chunk.count, sha256, indices: new Set() };
    if (chunk.count !== exempt.count || sha256 !== exempt.sha256 || chunk.index >= exempt.count || exempt.indices.has(chunk.index)) return;
    exempt.indices.add(chunk.index);
    host.connectionOf(from)?.uncount?.(uploadFrameBound(chunk.data.length));
  }
  /** The round ended (verified or failed): the transfer stops, what was held goes out, the policy's cooldown starts. */
  function endRound(): void {
    exempt = undefined;
    partialAfterLoad.clear();
    lastTransfer = transfer?.progress() ?? lastTransfer;
    transfer?.cancel();
    transfer = undefined;
    for (const id of [0, ...host.connectedIds()]) host.releaseHeld(id);
    checksums.repairEnded();
  }

  /** The engine threw while it applied a command: this game's world may be partly built (spec "Repair source"). */
  function markPartial(id: number): void {
    if (inRound() && !roundLoadsOver(id)) partialAfterLoad.add(id);
    actor.send({ type: 'game.partial', id });
  }
  /**
   * Will the running round still load its save over this game's world? Yes before the file is announced (every game
   * present takes part); then only for a participant (the host's game when it reloads) whose Hello is not in yet.
   * Seed 29 of the simulator: the host's game applied a command partly during a round's Verifying, the round's end
   * cleared its mark and the next round copied its broken world.
   */
  function roundLoadsOver(id: number): boolean {
    const snapshot = actor.getSnapshot();
    const c = snapshot.context;
    if (snapshot.matches({ Round: 'Verifying' })) return false;
    if (c.file === undefined) return true;
    const loads = id === HOST_GAME ? c.hostReloads : c.participants.includes(id);
    return loads && !c.heard.includes(id);
  }

  checksums.onRepairRequested((reason) => {
    if (inRound()) return;
    syncSession();
    if (inRound()) return; // the start's round (games at different times) is the repair
    byPolicy = true;
    actor.send({ type: 'cmd.start', reason });
  });
  lockstep.useResync({
    running: inRound,
    // The Hello after the round's load (it names the round's save): a participant in Loading, the host's game once its
    // load went out. A Hello without it is a game's fresh start (a joiner's game starting late), not the load's.
    loads: (from, save) => {
      const snapshot = actor.getSnapshot();
      const c = snapshot.context;
      if (save !== resyncSaveName(c.id) || c.heard.includes(from)) return false;
      if (from === 0) return c.hostReloads && c.file !== undefined && (snapshot.matches({ Round: 'Loading' }) || snapshot.matches({ Round: { Transferring: 'Sending' } }));
      return snapshot.matches({ Round: 'Loading' }) && c.participants.includes(from);
    },
  });

  const off = host.on((n) => {
    if (n.type === 'joined') {
      const capable = n.caps?.includes(RESYNC_SOURCE_CAPABILITY) === true;
      actor.send({ type: 'player.joined', id: n.id, name: n.name, capable, ...(n.returned === true ? { returned: true } : {}) });
    }
    else if (n.type === 'returned') {
      const capable = n.caps?.includes(RESYNC_SOURCE_CAPABILITY) === true;
      actor.send({ type: 'player.returned', id: n.id, name: n.name, capable });
    } else if (n.type === 'left') {
      transfer?.remove(n.id);
      host.releaseHeld(n.id, true);
      actor.send({ type: 'player.left', id: n.id });
    } else if (n.type === 'game') {
      const { message, from } = n;
      if (message.kind === 'SaveDone') {
        const { id, ok, detail } = message.payload;
        actor.send({ type: 'recv.SaveDone', from, id, ok, ...(detail === undefined ? {} : { detail }) });
      } else if (message.kind === 'Hello') {
        // Only the Hello of this round's load counts for the round (it names the save; see `loads` above).
        if (message.payload.save === resyncSaveName(context().id)) {
          actor.send({ type: 'recv.Hello', from, time: message.payload.time });
          host.loaded(from); // a returner that could not be caught up has its world again
          if (!inRound()) loadedAfterRound.add(from);
        }
        else if (inRound()) log({ msg: `resync ${context().id}: a hello not of this round's load (a fresh start) from game ${from}`, save: message.payload.save });
      }
      else if (message.kind === 'SpeedRequest' && inRound()) actor.send({ type: 'recv.SpeedRequest', from, speed: message.payload.speed });
      else if (message.kind === 'ResyncUpload') upload(from, message.payload);
      else if (message.kind === 'ActionRefused' && message.payload.partial === true) markPartial(from);
    }
  });

  // The session as the lockstep holds it: the start, the speed between rounds, and whom the pause waits for.
  let started = false;
  let speed: number | undefined;
  let outsidersLogged = 0;
  type LockstepGames = ReturnType<typeof lockstep.actor.getSnapshot>['context']['games'];
  /** The start and the speed between rounds, as the lockstep holds them now (each tick, and before a round starts). */
  const syncSession = () => {
    const session = sessionOf(lockstep.actor.getSnapshot().context);
    if (!session.started) return;
    if (!started) {
      started = true;
      speed = session.speed;
      const outsiders = startOutsiders();
      actor.send({ type: 'session.started', speed: session.speed, ...(outsiders.length > 0 ? { outsiders } : {}) });
    } else if (!inRound() && session.speed !== speed) {
      speed = session.speed;
      actor.send({ type: 'session.speed', speed: session.speed });
    }
  };
  /**
   * A session that started with games at different times (the lockstep's startApart): the games that stood apart and
   * are still outsiders. Logged once with their names and times; the chart starts the round (START_ROUND_REASON).
   */
  const startOutsiders = (): number[] => {
    const { startApart: apart, games } = lockstep.actor.getSnapshot().context;
    const outsiders = (apart?.outsiders ?? []).filter((o) => games[o.id]?.ready === true && games[o.id]?.hasWorld === false);
    if (apart === undefined || outsiders.length === 0) return [];
    const { id, players } = context();
    const ids = outsiders.map((o) => o.id);
    const at = outsiders.map((o) => `${namesOf([o.id], players)} at ${o.t}${o.helloTime === undefined ? '' : ` (loaded at ${o.helloTime})`}`);
    const msg = `resync ${id + 1}: the session started with games at different times (the host's game at ${apart.t}; ${at.join(', ')}): the round copies the host's world to ${namesOf(ids, players)}`;
    log({ msg, outsiders: ids });
    return ids;
  };
  /**
   * Games whose Hello named the last round's save after that round had ended: a player that dropped during the round,
   * loaded its save while away and said Hello after it came back (simulator seed 680 at full length). The round no
   * longer counts that Hello, so the lockstep keeps the game an outsider while the catch-up takes it as reloaded; one
   * still an outsider at the next tick gets a `player returned` round, as a returner that cannot be caught up does.
   */
  const loadedAfterRound = new Set<number>();
  const reloadLateLoaders = (games: LockstepGames) => {
    for (const from of loadedAfterRound) {
      loadedAfterRound.delete(from);
      const player = context().players.find((p) => p.id === from);
      if (inRound() || player === undefined || games[from] === undefined || games[from].hasWorld) continue;
      log({ msg: `resync ${context().id}: ${player.name}'s game loaded this round's save after it ended and is still an outsider: a round for it`, from });
      actor.send({ type: 'player.joined', id: from, name: player.name, capable: player.capable, returned: true });
    }
  };
  const tick = () => {
    syncSession();
    const lockstepContext = lockstep.actor.getSnapshot().context;
    if (loadedAfterRound.size > 0) reloadLateLoaders(lockstepContext.games);
    const session = sessionOf(lockstepContext);
    if (!actor.getSnapshot().matches({ Round: 'Pausing' })) return;
    const pauseAt = session.pauseAt;
    const games = Object.values(lockstepContext.games).filter((g) => g.ready);
    const waitingFor = games
      .filter((g) => g.hasWorld && (pauseAt === undefined || g.clock === undefined || g.clock.t < pauseAt || g.clock.speed !== 0))
      .map((g) => g.id);
    const outsiders = games.filter((g) => !g.hasWorld).map((g) => g.id);
    const { id, players } = context();
    if (outsiders.length > 0 && pauseAt !== undefined && outsidersLogged !== id) {
      outsidersLogged = id;
      log({ msg: `resync ${id}: pause ${pauseAt} waits only for the games in the session's world; not for ${namesOf(outsiders, players)}` });
    }
    // The repair source is one of these: a player whose game said Hello and holds the session's world (a joiner whose
    // game has not said Hello yet is in no list here, an outsider only in `outsiders`).
    const inWorld = games.filter((g) => g.hasWorld && g.id !== HOST_GAME).map((g) => g.id);
    actor.send({ type: 'pause.progress', waitingFor, inWorld });
  };
  actor.start();
  const stopTicks = startTicker(clock, log, 'resync tick', options.tickMs ?? 100, tick);

  return {
    actor,
    start: (reason) => {
      syncSession();
      actor.send({ type: 'cmd.start', reason });
    },
    running: inRound,
    hostPause: () => {
      if (inRound()) return actor.send({ type: 'cmd.pause' }), false;
      lockstep.pause();
      return true;
    },
    hostSpeed: (speed) => {
      if (inRound()) return actor.send({ type: 'cmd.setSpeed', speed }), false;
      lockstep.speed(speed);
      return true;
    },
    status: () => {
      const progress = transfer?.progress() ?? lastTransfer;
      return structuredClone({ ...status, ...(progress ? { transfer: progress } : {}) });
    },
    stop: () => {
      stopTicks();
      transfer?.cancel();
      off();
      ledger.stop();
      actor.stop();
    },
  };
}
