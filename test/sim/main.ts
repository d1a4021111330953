// `npm run sim`: the session simulator's command line (docs/SIMULATOR.md).
//   npm run sim -- --seed N [--fault fork] [--verbose]   one session; prints the apply-log hash and what failed
//   npm run sim -- --sessions K [--from S] [--json] [--fault fork]   K seeds from S (default 1); one JSON line with --json
//   --without reload,lateJoin,leave,freeze,playerPause,drops,heldBuilds,divergence,hostReloadModes   plans without those workloads;
//   --with NAME   with one that is off by default; --scale F: session lengths × F
//   --ci: the sizes of the run in npm test (test/sim/ciOptions.ts); --mod-dir DIR: run another version of the mod
//   --jobs N: K seeds in N processes (default: one per core; test/sim/parallel.ts)
// Exit code 1 when a session failed (with --fault fork that is the expected outcome).
import { availableParallelism } from 'node:os';
import { CI_SIM } from './ciOptions.ts';
import { runInChildren } from './parallel.ts';
import { addToSummary, emptySummary, failureText, runSeed, type SimOptions, type Summary } from './runSeed.ts';

interface Args {
  seed?: number;
  sessions?: number;
  from: number;
  json: boolean;
  verbose: boolean;
  fault?: 'fork';
  without: string[];
  with: string[];
  scale?: number;
  ci: boolean;
  modDir?: string;
  jobs?: number;
  /** This process runs every `stride`-th seed of the K from `from + offset` (a child of a --jobs run). */
  offset: number;
  stride: number;
}

function parse(argv: readonly string[]): Args {
  const args: Args = { from: 1, json: false, verbose: false, without: [], with: [], ci: false, offset: 0, stride: 1 };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    const value = (): number => {
      const v = Number(argv[++i]);
      if (!Number.isSafeInteger(v) || v < 0) throw new Error(`${a} needs a whole number`);
      return v;
    };
    if (a === '--seed') args.seed = value();
    else if (a === '--sessions') args.sessions = value();
    else if (a === '--from') args.from = value();
    else if (a === '--jobs') args.jobs = Math.max(1, value());
    else if (a === '--offset') args.offset = value();
    else if (a === '--stride') args.stride = Math.max(1, value());
    else if (a === '--json') args.json = true;
    else if (a === '--ci') args.ci = true;
    else if (a === '--mod-dir') args.modDir = String(argv[++i]);
    else if (a === '--scale') args.scale = Number(argv[++i]);
    else if (a === '--verbose') args.verbose = true;
    else if (a === '--without') args.without.push(...String(argv[++i]).split(','));
    else if (a === '--with') args.with.push(...String(argv[++i]).split(','));
    else if (a === '--fault') {
      if (argv[++i] !== 'fork') throw new Error('--fault takes: fork');
      args.fault = 'fork';
    } else throw new Error(`unknown argument ${a}`);
  }
  return args;
}

/** The command line without its --jobs N (the children run one job each). */
function withoutJobs(argv: readonly string[]): string[] {
  const out: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    if (argv[i] === '--jobs') i += 1;
    else out.push(argv[i]!);
  }
  return out;
}

async function main(): Promise<number> {
  const args = parse(process.argv.slice(2));
  const workloads = { ...Object.fromEntries(args.with.map((name) => [name, true])), ...Object.fromEntries(args.without.map((name) => [name, false])) };
  const base: SimOptions = args.ci ? CI_SIM.options : {};
  const options: SimOptions = {
    ...base,
    workloads: { ...base.workloads, ...workloads },
    ...(args.scale !== undefined && args.scale > 0 ? { lengthScale: args.scale } : {}),
    ...(args.fault ? { fault: args.fault } : {}),
    ...(args.verbose ? { logAll: true } : {}),
    ...(args.modDir ? { modDir: args.modDir } : {}),
  };
  if (args.sessions === undefined) {
    const seed = args.seed ?? args.from;
    const r = await runSeed(seed, options);
    if (args.verbose) for (const line of r.run.tail) console.log(line);
    if (args.json) {
      console.log(JSON.stringify({ seed, hash: r.hash, failures: r.failures, checks: r.checks, happened: r.happened }));
    } else {
      console.log(`seed ${seed}: ${r.players} players, ${(r.simMs / 1000).toFixed(1)} s simulated, went through: ${r.happened.join(', ') || '-'}`);
      console.log(`apply log hash ${r.hash}`);
      console.log(`checks ${JSON.stringify(r.checks)}`);
      console.log(r.failures.length === 0 ? 'ok' : failureText(r));
    }
    return r.failures.length === 0 ? 0 : 1;
  }
  const started = performance.now();
  const jobs = Math.min(args.jobs ?? availableParallelism(), args.sessions);
  let summary: Summary;
  if (jobs > 1 && args.stride === 1) {
    summary = await runInChildren(withoutJobs(process.argv.slice(2)), jobs);
  } else {
    summary = emptySummary();
    for (let k = args.offset; k < args.sessions; k += args.stride) {
      const r = await runSeed(args.from + k, options);
      addToSummary(summary, r);
      if ((!args.json || args.stride > 1) && r.failures.length > 0) console.error(failureText(r));
    }
  }
  const seconds = (performance.now() - started) / 1000;
  if (args.json) console.log(JSON.stringify(summary));
  else {
    console.log(`${summary.sessions} sessions in ${seconds.toFixed(1)} s, ${jobs} process(es) (${(summary.sessions / seconds).toFixed(2)} sessions/s, ${summary.simSeconds} s simulated), ${summary.failures} failed`);
    console.log(`checks ${JSON.stringify(summary.checks)}`);
    console.log(`coverage ${JSON.stringify(summary.coverage)}`);
    if (summary.failingSeeds.length > 0) console.log(`failing seeds ${summary.failingSeeds.join(' ')}`);
  }
  return summary.failures === 0 ? 0 : 1;
}

main().then(
  (code) => process.exit(code),
  (error: unknown) => {
    console.error(error instanceof Error ? error.message : String(error));
    process.exit(2);
  },
);
