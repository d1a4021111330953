// `feverlink3 demo [--players N] [--seconds S] [--json] [--bot-rate N] [--speeds 1,4,2] [--throttle I:F]
// [--keep] [--desync] [--hot-join] [--drops] [--report]`: a local session of simulated games in lockstep (the README's
// main job). --json prints one line:
// {"players":N,"actions":A,"late":L,"differences":[{n,part,games}…],"repairRequests":[{reason}…],"resyncs":R,
// "resyncsFailed":F,"worldsEqual":…,"worldHash":"…","pauseAt":…,"pauseItems":…,"times":[…]}. --desync injects one divergence into one game and runs until the
// resync round the host's repair request started ended. --drops cuts each player's connection DEMO_DROPS_PER_PLAYER
// times at seeded random moments (through a fault proxy of the demo); the launchers reconnect by themselves, and the
// line adds "cuts", "drops", "resumes", "reloads" and "rejoins" (measured from the launchers' output).
// SIGINT / SIGTERM stop it early (its launchers and their games end with it, status 1); a hang-up does not.
import { runDemo, type DemoOptions } from '../../demo/runDemo.ts';

/** --drops: cuts of each player's connection over the run. */
export const DEMO_DROPS_PER_PLAYER = 3;
import { decimalNumber, parseCommandLine, usageText, wholeNumber, type CommandSpec } from '../args.ts';
import { UsageError } from '../failure.ts';
import { writeErr, writeOut } from '../stdio.ts';
import { keepRunningOnHangup } from '../supervise.ts';

export const spec = {
  name: 'demo',
  synopsis: ['demo [--players N] [--seconds S] [--json] [--bot-rate PER_MIN] [--speeds 1,4,2] [--throttle PLAYER:FACTOR] [--desync] [--hot-join] [--drops] [--report]'],
  about: 'a local session: a host and players as separate launchers on 127.0.0.1, each with a simulated game and bots',
  options: {
    players: { type: 'string', arg: 'N', help: 'games, the host included, 1 to 8', default: '3' },
    seconds: { type: 'string', arg: 'S', help: 'how long they play, more than 0, at most 3600', default: '30' },
    json: { type: 'boolean', help: 'print only the result, as one JSON line' },
    'bot-rate': { type: 'string', arg: 'PER_MIN', help: "each bot's commands per minute", default: '60' },
    speeds: { type: 'string', arg: 'LIST', help: 'the speeds in turn over the run, each 1, 2 or 4', default: '1,4,2' },
    throttle: { type: 'string', arg: 'PLAYER:FACTOR', help: "one player's game gets FACTOR × the wall time, e.g. 1:0.5" },
    seed: { type: 'string', arg: 'N', help: 'the world seed of the save every game starts from', default: '1' },
    keep: { type: 'boolean', help: 'keep the session folders afterwards' },
    desync: { type: 'boolean', help: 'inject one divergence into one game; run until the automatic repair (a resync round) ended' },
    'hot-join': { type: 'boolean', help: 'the last player joins the running session; run until the round that loads its world ended' },
    drops: { type: 'boolean', help: "cut each player's connection 3 times at random moments (seeded by --seed); the launchers reconnect by themselves" },
    report: { type: 'boolean', help: 'at the end a player asks for a bug report; its zip\'s path is printed (folders kept)' },
    dir: { type: 'string', arg: 'DIR', help: 'put the session folders here (kept)' },
    inspect: { type: 'string', arg: 'PORT', help: "serve the host's inspector page on 127.0.0.1:PORT (0: any free port); each player's on a free port" },
  },
} as const satisfies CommandSpec;

export const usage = usageText(spec);

export async function run(args: readonly string[]): Promise<number> {
  const parsed = parseCommandLine(spec, args);
  if (parsed.help) {
    writeOut(`${usage}\n`);
    return 0;
  }
  const { values } = parsed;
  const players = wholeNumber('--players', values.players, 1, 8);
  const seconds = decimalNumber('--seconds', values.seconds, (s) => s > 0 && s <= 3600, 'more than 0, at most 3600');
  const botRate = decimalNumber('--bot-rate', values['bot-rate'], (r) => r <= 60_000, 'a number of commands per minute, at most 60000');
  const speeds = values.speeds.split(',');
  if (speeds.some((s) => !['1', '2', '4'].includes(s.trim()))) {
    throw new UsageError(`--speeds: expected a list of 1, 2, 4, got ${JSON.stringify(values.speeds)}`);
  }
  const worldSeed = wholeNumber('--seed', values.seed, 0, 2 ** 31 - 1);
  if (values.drops && players < 2) throw new UsageError('--drops: needs at least 2 players (the host is never cut)');
  let throttle: DemoOptions['throttle'];
  if (values.throttle !== undefined) {
    const m = /^(\d+):(\d+(?:\.\d+)?)$/.exec(values.throttle);
    const p = Number(m?.[1]);
    const f = Number(m?.[2]);
    if (!m || p >= players || !(f > 0 && f <= 4)) {
      const expected = `PLAYER:FACTOR with PLAYER 0 to ${players - 1} and FACTOR more than 0, at most 4`;
      throw new UsageError(`--throttle: expected ${expected}, got ${JSON.stringify(values.throttle)}`);
    }
    throttle = { player: p, factor: f };
  }
  const stop = new AbortController();
  const onSignal = (signal: NodeJS.Signals) => stop.abort(new Error(`stopped (${signal})`));
  process.once('SIGINT', onSignal);
  process.once('SIGTERM', onSignal);
  keepRunningOnHangup();
  const options: DemoOptions = {
    players,
    seconds,
    botRate,
    speeds: speeds.map(Number),
    worldSeed,
    live: !values.json,
    keep: values.keep,
    signal: stop.signal,
    ...(values.desync ? { desync: true } : {}),
    ...(values['hot-join'] ? { hotJoin: true } : {}),
    ...(values.drops ? { drops: DEMO_DROPS_PER_PLAYER } : {}),
    ...(values.report ? { report: true } : {}),
    ...(throttle ? { throttle } : {}),
    ...(values.dir ? { root: values.dir } : {}),
    ...(values.inspect === undefined ? {} : { inspect: wholeNumber('--inspect', values.inspect, 0, 65535) }),
  };
  try {
    const print = (line: string) => void writeOut(`${line}\n`);
    const result = await runDemo(options, print, process.stdout.isTTY ? redrawInPlace() : print);
    if (values.json) {
      // The contract's fields first; pauseAt, pauseItems and each game's time at the comparison are this scenario's own.
      const { games, ...line } = result;
      writeOut(`${JSON.stringify({ ...line, times: games?.map((g) => g.t) })}\n`);
    } else {
      writeOut(
        `\nworldsEqual: ${result.worldsEqual}, late: ${result.late} — ${result.players} games stopped at pauseAt ` +
          `${result.pauseAt} after ${result.actions} actions; world ${result.worldHash}\n`,
      );
      if (result.drops !== undefined) {
        writeOut(`drops: ${result.drops} (cuts ${result.cuts}), resumes: ${result.resumes} (${result.reloads} reloaded), rejoins: ${result.rejoins}, resyncs: ${result.resyncs}\n`);
      }
    }
    // --desync succeeds when the divergence was found, a repair asked for and made (a verified resync round, equal
    // worlds); --hot-join when the joiner's world was loaded by a verified round and the worlds are equal.
    if (values.desync && !(result.differences.length > 0 && result.repairRequests.length > 0)) return 1;
    if (values.desync || values['hot-join']) return result.worldsEqual && result.resyncs > 0 ? 0 : 1;
    // --drops: every drop came back as a resume (the same id), with no reload, no late action and equal worlds.
    if (values.drops) {
      const resumedAll = (result.drops ?? 0) > 0 && result.resumes === result.drops && result.rejoins === 0;
      return result.worldsEqual && result.late === 0 && result.resyncs === 0 && resumedAll ? 0 : 1;
    }
    return result.worldsEqual && result.late === 0 ? 0 : 1;
  } catch (error) {
    writeErr(`feverlink3 demo: ${(error as Error).message}\n`);
    return 1;
  } finally {
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
  }
}

/** On a terminal the live table is redrawn over the previous one instead of scrolling. */
function redrawInPlace(): (table: string) => void {
  let shown = 0;
  return (table) => {
    const up = shown > 0 ? `\x1b[${shown}F\x1b[J` : '';
    writeOut(`${up}${table}\n`);
    shown = table.split('\n').length;
  };
}
