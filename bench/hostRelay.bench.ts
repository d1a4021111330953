// The host's relay measured the way it runs (issue "Every concern an actor the inspector can see", item 5): the host
// is `feverlink3 host --game none --max-players 9` in a process of its own; 7 receiver processes
// (bench/support/relayReceiver.ts) and a sender in this process join it as players over TCP on 127.0.0.1, say
// hello, stand, and the host's terminal types /start. In a round every one of the 8 players blasts Actions at
// 900 a second, under the spec's per-connection cap (1000 frames/s), so the host
// relays 8 × that, each Action to all 8 players (the 7 others, and its origin, which applies it only with the host's
// copy); a player never runs more than 250 Actions ahead of what it got
// from the others, so a host that falls behind is not closed as a flood. Printed: Actions relayed per second
// (counted at the players), frames per second out of the host, and the host process's CPU per Action
// (/proc/<pid>/stat utime + stime around the round), for the trace recorder ON and OFF (FEVERLINK3_TRACE=off in the
// host's environment): two hosts run side by side, and their rounds alternate A B A B … so the machine's swings hit
// both. Beside it, measured in this process in the same run, the floor (bench/support/relayFloor.ts: open + JSON
// parse + JSON encode + seal per Action), and host CPU / floor. `npm run bench -- hostRelay --profile` also runs a
// third host (recorder ON; with `--profile-off` instead, OFF) under --cpu-prof and prints its top self-time
// functions. `-- hostRelay --base <dir>` also runs two hosts (ON, OFF) from another tree of the project (a copy
// before a change, its node_modules linked) in the same interleaved rounds, and prints this tree's host CPU per
// action over the base's, pair by pair: a before/after measured in one machine state. `-- hostRelay --capacity`
// measures what the host can relay, not what 8 paced players offer: the hosts run with the frame cap lifted
// (FEVERLINK3_RATE_LIMIT_SCALE), every player sends as fast as its window lets it, and the players count
// Action frames by their clear header without opening them (RelayPeer.lean). Prints only; judges nothing.
import { mkdtemp, readdir, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { summariseProfile } from './support/cpuProfile.ts';
import { HostProcess } from './support/hostProcess.ts';
import { LocalReceiver, ReceiverProcess, type Receiver, type ReceiverStatus } from './support/receiverProcess.ts';
import { floorSample } from './support/relayFloor.ts';
import { RelayPeer, type PeerCounts, type RoundCounts } from './support/relayPeer.ts';
import { CAPACITY, PACED } from './support/relayLoad.ts';

/** Receiver processes; with the sender, 8 players: `--max-players 9` counts the host's own (absent) game. */
const RECEIVERS = 7;
const MAX_PLAYERS = 9;
const PLAYERS = RECEIVERS + 1;
/** This run's load (support/relayLoad.ts); `--capacity` sets CAPACITY. */
let load = PACED;
/** A/B pairs of rounds (after one warm-up round on each host); `--pairs <n>` sets another count. */
const DEFAULT_PAIRS = 8;
/** Rounds on the profiled host. */
const PROFILE_ROUNDS = 2;

type Variant = 'on' | 'off' | 'base-on' | 'base-off' | 'profile';

interface BenchHost {
  readonly variant: Variant;
  readonly proc: HostProcess;
  readonly dir: string;
  sender?: RelayPeer;
  /** Rounds run on it so far (each player then holds rounds × 7 × roundActions of the others' Actions). */
  rounds: number;
  /** Every player's counts (since its join) at the end of the last round; the sender first. */
  last?: PeerCounts[];
}

interface Round {
  variant: Variant;
  seconds: number;
  /** Actions the host relayed (others' Actions received by the players / 7; the origin's own copy is not counted). */
  relayed: number;
  /** Frames the players received from the host: what it sent out. */
  frames: number;
  vetoes: number;
  hostCpuMicros: number;
  /** CPU the other hosts used meanwhile, µs a second, by variant: their idle load (clocks, pings, status file). */
  idleCpuPerSecond: Partial<Record<Variant, number>>;
  incomplete: string[];
}

const median = (values: readonly number[]): number => {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
};
const spread = (values: readonly number[], digits = 1): string =>
  values.length === 0 ? '—' : `${Math.min(...values).toFixed(digits)}–${Math.max(...values).toFixed(digits)}`;
const until = async (probe: () => Promise<boolean>, ms: number, what: () => string): Promise<void> => {
  const end = Date.now() + ms;
  while (!(await probe())) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what()}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
};

/** Joins the sender and every receiver, has every game say hello and stand, types /start, waits for the start. */
async function startSession(host: BenchHost, receivers: readonly Receiver[]): Promise<void> {
  const { port, key } = await host.proc.address();
  const keyHex = Buffer.from(key).toString('hex');
  const peer = { lean: load.lean, clockMs: load.clockMs };
  host.sender = await RelayPeer.join(port, key, 'sender', peer);
  for (const r of receivers) await r.call('join', { host: host.variant, port, keyHex, name: r.name, ...peer });
  host.sender.hello();
  await Promise.all(receivers.map((r) => r.call('hello', { host: host.variant })));
  // Each game's PeerClock reached every other player: the host has every Hello and every standing Clock.
  let statuses: ReceiverStatus[] = [];
  await until(
    async () => {
      statuses = await Promise.all(receivers.map((r) => r.call('status', { host: host.variant })));
      return host.sender!.peersSeen.size >= PLAYERS - 1 && statuses.every((s) => s.peers.length >= PLAYERS - 1);
    },
    20_000,
    () => `every game's clock at every player (${host.sender!.peersSeen.size}, ${statuses.map((s) => s.peers.length)})`,
  );
  const from = host.proc.lineCount;
  host.proc.type('/start');
  const answer = await host.proc.waitForLine((l) => /^start( waits|$)/.test(l), 10_000, 'answer to /start', from);
  if (answer !== 'start') throw new Error(`the host did not start: ${answer}`);
  await until(
    async () => {
      statuses = await Promise.all(receivers.map((r) => r.call('status', { host: host.variant })));
      return host.sender!.startedAt !== undefined && statuses.every((s) => s.started);
    },
    10_000,
    () => 'every player to read the started Session',
  );
}

/** One round on `host`: all 8 players blast roundActions each; until every player has the others' Actions. */
async function round(host: BenchHost, receivers: readonly Receiver[], all: readonly BenchHost[]): Promise<Round> {
  // A lean player counts its own Actions' copies too: it waits for all 8 players' shares.
  const copies = load.lean ? PLAYERS : PLAYERS - 1;
  const expect = copies * load.roundActions;
  host.rounds++;
  const target = host.rounds * expect;
  const others = all.filter((h) => h !== host);
  const common = {
    count: load.roundActions,
    perSecond: load.perSender,
    target,
    expect,
    timeoutMs: load.timeoutMs,
    window: load.window,
  };
  const cpuBefore = host.proc.cpuMicros();
  const othersBefore = others.map((h) => h.proc.cpuMicros());
  const start = performance.now();
  const counts: RoundCounts[] = await Promise.all([
    host.sender!.round(common.count, common.perSecond, target, expect, common.timeoutMs, common.window),
    ...receivers.map((r) => r.call('round', { host: host.variant, ...common })),
  ]);
  const seconds = (performance.now() - start) / 1000;
  const hostCpuMicros = host.proc.cpuMicros() - cpuBefore;
  const idleCpuPerSecond: Partial<Record<Variant, number>> = {};
  others.forEach((h, i) => (idleCpuPerSecond[h.variant] = (h.proc.cpuMicros() - othersBefore[i]!) / seconds));
  const names = ['sender', ...receivers.map((r) => r.name)];
  const incomplete = counts.flatMap((c, i) =>
    c.complete
      ? []
      : [
          `${names[i]}: ${c.actions + c.vetoes}/${target}${c.ended ? ` ended ${c.ended}` : ''}, short from ` +
            Object.entries(c.byOrigin)
              .filter(([, n]) => n < host.rounds * load.roundActions)
              .map(([id, n]) => `${id} (${n - host.rounds * load.roundActions})`)
              .join(', '),
        ],
  );
  const before = host.last ?? counts.map(() => ({ frames: 0, actions: 0, vetoes: 0, ownVetoes: 0, actionFrames: 0 }));
  host.last = counts;
  const sum = (key: keyof PeerCounts) => counts.reduce((total, c, i) => total + c[key] - before[i]![key], 0);
  return {
    variant: host.variant,
    seconds,
    // Each relayed Action reached the 7 others (and, counted by a lean player, its origin).
    relayed: sum(load.lean ? 'actionFrames' : 'actions') / copies,
    frames: sum('frames'),
    vetoes: sum('ownVetoes'),
    hostCpuMicros,
    idleCpuPerSecond,
    incomplete,
  };
}

/** Host CPU per Action it handled: relayed, or vetoed (a cold or lagging host vetoes some; each costs it alike). */
const perAction = (r: Pick<Round, 'hostCpuMicros' | 'relayed' | 'vetoes'>) => r.hostCpuMicros / (r.relayed + r.vetoes);
/** The rounds' CPU and Actions added up (for a ratio of sums). */
const total = (rounds: readonly Round[]) => ({
  hostCpuMicros: rounds.reduce((sum, r) => sum + r.hostCpuMicros, 0),
  relayed: rounds.reduce((sum, r) => sum + r.relayed, 0),
  vetoes: rounds.reduce((sum, r) => sum + r.vetoes, 0),
});

function variantRow(label: string, rounds: readonly Round[], idlePerSecond: number, floor: number): string {
  const rates = rounds.map((r) => r.relayed / r.seconds);
  const frames = rounds.map((r) => r.frames / r.seconds);
  const cpu = rounds.map(perAction);
  const net = rounds.map((r) => (r.hostCpuMicros - idlePerSecond * r.seconds) / (r.relayed + r.vetoes));
  const busy = rounds.map((r) => (100 * r.hostCpuMicros) / 1e6 / r.seconds);
  return [
    `${label.padEnd(14)}`,
    `${Math.round(median(rates)).toString().padStart(6)} actions/s (${spread(rates, 0)})`,
    `${Math.round(median(frames)).toString().padStart(6)} frames/s out`,
    `host CPU ${median(cpu).toFixed(1).padStart(5)} µs/action (${spread(cpu)}), ${median(busy).toFixed(0)} % of a core`,
    `net of idle ${median(net).toFixed(1)} µs`,
    `= ${(median(cpu) / floor).toFixed(1)}× floor`,
    ...(rounds.some((r) => r.vetoes > 0) ? [`vetoed ${rounds.reduce((sum, r) => sum + r.vetoes, 0)}`] : []),
  ].join('  ');
}

/** Bytes of trace*.jsonl in a session folder (what the recorder wrote, rotated files included). */
async function traceSize(dir: string): Promise<number> {
  const names = (await readdir(dir).catch(() => [] as string[])).filter((n) => /^trace.*\.jsonl$/.test(n));
  const sizes = await Promise.all(names.map((n) => stat(join(dir, n)).then((s) => s.size, () => 0)));
  return sizes.reduce((a, b) => a + b, 0);
}

export async function run(): Promise<void> {
  // `--profile-off`: the profiled host runs with the recorder OFF (to set its profile beside an ON one).
  const profileOff = process.argv.includes('--profile-off');
  const profile = profileOff || process.argv.includes('--profile');
  if (process.argv.includes('--capacity')) load = CAPACITY;
  // `--keep`: the hosts' session folders stay (launcher.log, trace.jsonl) to be read after the run.
  const keep = process.argv.includes('--keep');
  const option = (name: string): string | undefined => {
    const at = process.argv.indexOf(name);
    return at >= 0 ? process.argv[at + 1] : undefined;
  };
  const PAIRS = Math.max(1, Number(option('--pairs') ?? DEFAULT_PAIRS) || DEFAULT_PAIRS);
  const TOP = Math.max(1, Number(option('--top') ?? 15) || 15);
  const baseAt = process.argv.indexOf('--base');
  const base = baseAt >= 0 ? process.argv[baseAt + 1] : undefined;
  if (baseAt >= 0 && !base) throw new Error('--base needs the directory of the other tree');
  const baseBin = base === undefined ? undefined : resolve(base, 'bin/feverlink3.js');
  const root = await mkdtemp(join(tmpdir(), 'feverlink3-bench-hostrelay-'));
  const variants: Variant[] = ['on', 'off', ...(base ? (['base-on', 'base-off'] as const) : []), ...(profile ? (['profile'] as const) : [])];
  const profDir = join(root, 'cpuprof');
  const hosts: BenchHost[] = variants.map((variant) => {
    const dir = join(root, `host-${variant}`);
    const proc = new HostProcess({
      dir,
      maxPlayers: MAX_PLAYERS,
      env: { ...load.hostEnv, FEVERLINK3_TRACE: variant.endsWith('off') || (variant === 'profile' && profileOff) ? 'off' : undefined },
      ...(variant === 'profile' ? { nodeArgs: ['--cpu-prof', '--cpu-prof-dir', profDir] } : {}),
      ...(variant.startsWith('base-') ? { bin: baseBin! } : {}),
    });
    return { variant, proc, dir, rounds: 0 };
  });
  const receivers: Receiver[] = [...Array(RECEIVERS).keys()].map((i) =>
    load.lean ? new LocalReceiver(`r${i + 1}`) : new ReceiverProcess(`r${i + 1}`),
  );
  const problems: string[] = [];
  try {
    console.log(
      `host: \`feverlink3 host --game none --max-players ${MAX_PLAYERS}\` in its own process; ${RECEIVERS} receivers` +
        (load.lean ? ' and 1 sender, all in this process,' : ' in processes of their own + 1 sender (this process)') +
        ` join it over TCP on 127.0.0.1;\na round: each of the ${PLAYERS} players` +
        (load === CAPACITY
          ? ` sends ${load.roundActions} Actions as fast as the host relays them (capacity: the host's rate limits ×100,` +
            ` the players count Action frames unopened),`
          : ` sends ${load.roundActions} Actions at ${load.perSender}/s (the spec caps a connection at 1000 frames/s),`) +
        ` the host relays each to all ${PLAYERS} (its origin included: ${PLAYERS} frames out per action);\n${PAIRS} A/B pairs of rounds, recorder ON` +
        ` (trace.jsonl) / OFF (FEVERLINK3_TRACE=off)${base ? `, and the same from the base tree ${base}` : ''},` +
        ' after one warm-up round each; median (min–max) over the rounds',
    );
    await Promise.all(receivers.map((r) => r.up));
    for (const host of hosts) await startSession(host, receivers);
    const floors: number[] = [floorSample()];

    const measured = hosts.filter((h) => h.variant !== 'profile');
    const warmUps: Round[] = [];
    for (const host of measured) warmUps.push(await round(host, receivers, hosts));
    const rounds: Round[] = [];
    const pairs: Round[][] = [];
    for (let pair = 0; pair < PAIRS; pair++) {
      const these: Round[] = [];
      // Every other pair in the reverse order: no variant always runs right after the same other one.
      for (const host of pair % 2 ? [...measured].reverse() : measured) these.push(await round(host, receivers, hosts));
      rounds.push(...these);
      pairs.push(these);
      floors.push(floorSample());
    }
    const traceBytes = await traceSize(hosts.find((h) => h.variant === 'on')!.dir);
    // Each measured host's CPU since it started: all of them ran the same rounds and lived the same time.
    const wholeRun = new Map(measured.map((h) => [h.variant, h.proc.cpuMicros()]));
    const cpuOf = (variant: Variant) => wholeRun.get(variant) ?? Number.NaN;

    let summary: ReturnType<typeof summariseProfile> | undefined;
    let profiled: Round[] = [];
    const profHost = hosts.find((h) => h.variant === 'profile');
    if (profHost) {
      warmUps.push(await round(profHost, receivers, hosts)); // left out of the profile's window
      const from = Number(process.hrtime.bigint() / 1000n);
      for (let i = 0; i < PROFILE_ROUNDS; i++) profiled.push(await round(profHost, receivers, hosts));
      const to = Number(process.hrtime.bigint() / 1000n);
      profHost.sender?.close();
      await Promise.all(receivers.map((r) => r.call('leave', { host: 'profile' }).catch(() => undefined)));
      await profHost.proc.stop();
      const file = (await readdir(profDir)).find((f) => f.endsWith('.cpuprofile'));
      if (file) summary = summariseProfile(join(profDir, file), TOP, { from, to });
      else problems.push('the profiled host wrote no .cpuprofile');
    }

    const floor = median(floors);
    // A round that timed out waiting (a lost or late frame) holds idle seconds: left out, listed below.
    const whole = pairs.filter((pair) => pair.every((r) => r.incomplete.length === 0));
    const of = (variant: Variant) => whole.map((pair) => pair.find((r) => r.variant === variant)!);
    const on = of('on');
    const off = of('off');
    if (whole.length < pairs.length) {
      console.log(`(${pairs.length - whole.length} of ${pairs.length} pairs left out: a round incomplete)`);
    }
    // The idle load of a host, measured while the other host's rounds ran.
    const idleOf = (variant: Variant, meanwhile: readonly Round[]) => median(meanwhile.map((r) => r.idleCpuPerSecond[variant]!));
    const idleOn = idleOf('on', off);
    const idleOff = idleOf('off', on);
    console.log(variantRow('recorder ON', on, idleOn, floor));
    console.log(variantRow('recorder OFF', off, idleOff, floor));
    if (base) {
      const baseOn = of('base-on');
      const baseOff = of('base-off');
      console.log(variantRow('base ON', baseOn, idleOf('base-on', on), floor));
      console.log(variantRow('base OFF', baseOff, idleOf('base-off', on), floor));
      for (const [label, mine, theirs] of [['ON', on, baseOn], ['OFF', off, baseOff]] as const) {
        const ratios = mine.map((r, i) => perAction(r) / perAction(theirs[i]!));
        console.log(
          `  this tree / base, host CPU per action, recorder ${label}: ${median(ratios).toFixed(2)} (pairs ${spread(ratios, 2)});` +
            ` µs/action ${median(mine.map(perAction)).toFixed(1)} vs ${median(theirs.map(perAction)).toFixed(1)}`,
        );
      }
      const baseRatios = baseOn.map((r, i) => perAction(r) / perAction(baseOff[i]!));
      console.log(`  base ON / OFF host CPU per action: ${median(baseRatios).toFixed(2)} (pairs ${spread(baseRatios, 2)})`);
      console.log(
        `  whole run, host CPU (same rounds, same time alive, idle included): this / base ON ${(cpuOf('on') / cpuOf('base-on')).toFixed(2)},` +
          ` OFF ${(cpuOf('off') / cpuOf('base-off')).toFixed(2)}; base ON / OFF ${(cpuOf('base-on') / cpuOf('base-off')).toFixed(2)}`,
      );
    }
    const pairRatios = on.map((r, i) => perAction(r) / perAction(off[i]!));
    console.log(
      `  per round, host CPU µs/action: ON ${on.map((r) => perAction(r).toFixed(1)).join(' ')}` +
        ` | OFF ${off.map((r) => perAction(r).toFixed(1)).join(' ')}`,
    );
    console.log(
      `  ON / OFF host CPU per action: ${median(pairRatios).toFixed(2)} (pairs ${spread(pairRatios, 2)});` +
        ` idle host load: ON ${(idleOn / 1000).toFixed(1)} ms/s, OFF ${(idleOff / 1000).toFixed(1)} ms/s` +
        ' (clocks, pings, status file; "net" subtracts it)',
    );
    // Less swayed by one slow round than the median of the pairs' ratios: all CPU over all Actions, ON against OFF.
    const sumRatio = (a: readonly Round[], b: readonly Round[]) => perAction(total(a)) / perAction(total(b));
    console.log(
      `  ON / OFF, all rounds' host CPU over all their Actions: ${sumRatio(on, off).toFixed(2)};` +
        ` whole run, host CPU ON / OFF (same rounds, same time alive, idle included): ${(cpuOf('on') / cpuOf('off')).toFixed(2)}`,
    );
    console.log(`  trace*.jsonl written by the ON host over the whole run: ${(traceBytes / 1024).toFixed(0)} KiB`);
    console.log(
      `floor (this process: AES-GCM open + JSON.parse + JSON.stringify + seal, one Action): ${floor.toFixed(2)} µs` +
        ` (${spread(floors, 2)}, ${floors.length} samples); implied one-core capacity: host ON` +
        ` ${Math.round(1e6 / median(on.map(perAction)))}, OFF ${Math.round(1e6 / median(off.map(perAction)))},` +
        ` floor ${Math.round(1e6 / floor)} actions/s`,
    );
    console.log(
      `  (host CPU in 10 ms ticks of /proc/<pid>/stat; the players, this process and the hosts share the machine's` +
        ' cores, so actions/s is bound by the offered load and the machine, not by the host)',
    );
    if (profiled.length > 0) console.log(variantRow(`profiled (${profileOff ? 'OFF' : 'ON'})`, profiled, profileOff ? idleOff : idleOn, floor));
    if (summary) {
      const total = summary.busyMicros / 1000;
      console.log(
        `host CPU profile (--cpu-prof, recorder ${profileOff ? 'OFF' : 'ON'}, ${PROFILE_ROUNDS} rounds${summary.windowed ? '' : ', WHOLE run'}):` +
          ` ${total.toFixed(0)} ms busy; top self time:`,
      );
      for (const t of summary.top) {
        console.log(`  ${(100 * t.share).toFixed(1).padStart(5)} %  ${t.name.slice(0, 40).padEnd(40)} ${t.where}`);
      }
      console.log('  by file:');
      for (const f of summary.files.slice(0, 10)) console.log(`  ${(100 * f.share).toFixed(1).padStart(5)} %  ${f.where}`);
    }
    const all = [...rounds, ...profiled];
    const vetoes = all.reduce((sum, r) => sum + r.vetoes, 0);
    if (vetoes > 0) problems.push(`vetoes per round: ${all.map((r) => `${r.variant} ${r.vetoes}`).join(', ')}`);
    const warmVetoes = warmUps.reduce((sum, r) => sum + r.vetoes, 0);
    // Cold (JIT, 10 processes on 2 cores), the first round runs up to a second behind: the host's view of the slowest
    // game's time lags the stamps by more than 512 Actions of one origin, and its in-flight guard vetoes the excess.
    if (warmVetoes > 0) console.log(`(the warm-up rounds, not counted, had ${warmVetoes} Actions vetoed)`);
    if (vetoes > 0) problems.push(`the host vetoed ${vetoes} Actions (not relayed, left out of the counts)`);
    for (const r of all) for (const text of r.incomplete) problems.push(`round on ${r.variant} incomplete: ${text}`);
    for (const host of hosts) for (const text of host.sender?.problems ?? []) problems.push(`sender@${host.variant}: ${text}`);
    const vetoReasons = new Map<string, number>();
    for (const host of measured) {
      const statuses = await Promise.all(receivers.map((r) => r.call('status', { host: host.variant })));
      const reasons = [Object.fromEntries(host.sender?.vetoReasons ?? []), ...statuses.map((s) => s.vetoReasons)];
      for (const [why, n] of reasons.flatMap((r) => Object.entries(r))) vetoReasons.set(why, (vetoReasons.get(why) ?? 0) + n);
      statuses.forEach((s, i) => {
        for (const text of s.problems) problems.push(`${receivers[i]!.name}@${host.variant}: ${text}`);
        if (s.ended) problems.push(`${receivers[i]!.name}@${host.variant}: session ended ${s.ended}`);
      });
    }
    for (const [why, n] of vetoReasons) problems.push(`why (ON and OFF hosts, warm-ups included, ${n}×): ${why}`);
    if (problems.length > 0) {
      console.log(`note: ${problems.length} problems, first:`);
      for (const text of problems.slice(0, 40)) console.log(`  ${text.slice(0, 240)}`);
    }
  } finally {
    for (const host of hosts) host.sender?.close();
    await Promise.all(receivers.map((r) => r.stop()));
    await Promise.all(hosts.map((h) => h.proc.stop()));
    if (keep) console.log(`session folders kept (--keep): ${root}`);
    else await rm(root, { recursive: true, force: true });
  }
}
