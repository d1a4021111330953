// `feverlink3 demo [--players N] [--seconds S] [--json] [--bot-rate N] [--speeds 1,4,2] [--throttle I:F]
// [--keep]`: a local session of simulated games in lockstep (the README's main job). --json prints one line:
// {"players":N,"actions":A,"late":L,"resyncs":R,"differences":[…],"worldsEqual":…,"worldHash":"…"}.
import { parseArgs } from 'node:util';
import { runDemo, type DemoOptions } from '../../demo/runDemo.ts';

export async function run(args: readonly string[]): Promise<number> {
  const { values } = parseArgs({
    args: [...args],
    options: {
      players: { type: 'string', default: '3' },
      seconds: { type: 'string', default: '30' },
      json: { type: 'boolean', default: false },
      'bot-rate': { type: 'string', default: '60' },
      speeds: { type: 'string', default: '1,4,2' },
      throttle: { type: 'string' },
      seed: { type: 'string', default: '1' },
      keep: { type: 'boolean', default: false },
      dir: { type: 'string' },
    },
    strict: true,
  });
  const players = Number(values.players);
  const seconds = Number(values.seconds);
  const botRate = Number(values['bot-rate']);
  const speeds = values.speeds.split(',').map(Number);
  if (!Number.isInteger(players) || players < 1 || players > 8) return usage('--players: 1..8');
  if (!(seconds > 0 && seconds <= 3600)) return usage('--seconds: more than 0, at most 3600');
  if (!(botRate >= 0)) return usage('--bot-rate: a number of commands per minute');
  if (speeds.some((s) => ![1, 2, 4].includes(s))) return usage('--speeds: a list of 1, 2, 4');
  let throttle: DemoOptions['throttle'];
  if (values.throttle) {
    const [p, f] = values.throttle.split(':').map(Number);
    if (!Number.isInteger(p) || p! < 0 || p! >= players || !(f! > 0 && f! <= 4)) return usage('--throttle: PLAYER:FACTOR, e.g. 1:0.5');
    throttle = { player: p!, factor: f! };
  }
  const options: DemoOptions = {
    players,
    seconds,
    botRate,
    speeds,
    worldSeed: Number(values.seed),
    live: !values.json,
    keep: values.keep,
    ...(throttle ? { throttle } : {}),
    ...(values.dir ? { root: values.dir } : {}),
  };
  try {
    const print = (line: string) => process.stdout.write(`${line}\n`);
    const result = await runDemo(options, print, process.stdout.isTTY ? redrawInPlace() : print);
    if (values.json) {
      // The contract's fields first; pauseAt and each game's time at the comparison are this scenario's own.
      const { games, ...line } = result;
      process.stdout.write(`${JSON.stringify({ ...line, times: games?.map((g) => g.t) })}\n`);
    } else {
      process.stdout.write(
        `\nworldsEqual: ${result.worldsEqual}, late: ${result.late} — ${result.players} games stopped at pauseAt ` +
          `${result.pauseAt} after ${result.actions} actions; world ${result.worldHash}\n`,
      );
    }
    return result.worldsEqual && result.late === 0 ? 0 : 1;
  } catch (error) {
    process.stderr.write(`feverlink3 demo: ${(error as Error).message}\n`);
    return 1;
  }
}

/** On a terminal the live table is redrawn over the previous one instead of scrolling. */
function redrawInPlace(): (table: string) => void {
  let shown = 0;
  return (table) => {
    const up = shown > 0 ? `\x1b[${shown}F\x1b[J` : '';
    process.stdout.write(`${up}${table}\n`);
    shown = table.split('\n').length;
  };
}

function usage(problem: string): number {
  process.stderr.write(`feverlink3 demo: ${problem}\nusage: feverlink3 demo [--players N] [--seconds S] [--json]\n`);
  return 2;
}
