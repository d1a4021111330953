// The command line's contract for people (adapters/cli): `feverlink3 <command> --help` / `-h` prints that
// command's usage on stdout and exits 0, for every command; a wrong or missing option or argument prints ONE
// line saying what is wrong, then the command's usage, on stderr, and exits 2; never a stack trace. Most cases
// run main() in this process (fast); a few run the real binary, where a stack trace would show.
import { execFile } from 'node:child_process';
import { resolve } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { main } from '../../adapters/cli/main.ts';

const root = resolve(import.meta.dirname, '../..');
const COMMANDS = ['code', 'host', 'join', 'demo', 'simgame'] as const;
const GOLDEN = 'AFSVH4IAAAAQEAYEAUDAOCAJBIFQYDIOB4AQI7YAAAAWTB32UZUFQ';

interface Run {
  status: number;
  stdout: string;
  stderr: string;
}

/** main() in this process with stdout and stderr captured. */
async function inProcess(...args: string[]): Promise<Run> {
  let stdout = '';
  let stderr = '';
  const capture = (add: (text: string) => void) => (chunk: string | Uint8Array, ...rest: unknown[]) => {
    add(String(chunk));
    const cb = rest.find((r) => typeof r === 'function') as (() => void) | undefined;
    cb?.();
    return true;
  };
  vi.spyOn(process.stdout, 'write').mockImplementation(capture((t) => (stdout += t)) as typeof process.stdout.write);
  vi.spyOn(process.stderr, 'write').mockImplementation(capture((t) => (stderr += t)) as typeof process.stderr.write);
  try {
    const status = await main(args);
    return { status, stdout, stderr };
  } finally {
    vi.restoreAllMocks();
  }
}

/** The real binary. */
function feverlink3(...args: string[]): Promise<Run> {
  return new Promise((done) => {
    execFile(process.execPath, ['bin/feverlink3.js', ...args], { cwd: root, timeout: 20_000 }, (error, stdout, stderr) => {
      done({ status: error === null ? 0 : typeof error.code === 'number' ? error.code : -1, stdout, stderr });
    });
  });
}

/** The shape every usage error has: one problem line, then the command's usage; no stack. */
function expectUsageError(run: Run, command: string, problem: RegExp): void {
  expect(run.status, run.stderr).toBe(2);
  expect(run.stdout).toBe('');
  const [first, second] = run.stderr.split('\n');
  expect(first).toMatch(new RegExp(`^feverlink3 ${command}: `));
  expect(first!.slice(`feverlink3 ${command}: `.length)).toMatch(problem);
  expect(second).toMatch(new RegExp(`^usage: feverlink3 ${command}`));
  expect(run.stderr).not.toMatch(/^\s+at /m);
}

afterEach(() => {
  vi.restoreAllMocks();
});

describe('--help and -h', () => {
  it.each(COMMANDS.flatMap((c) => [[c, '--help'], [c, '-h']]))('feverlink3 %s %s prints the usage, status 0', async (command, flag) => {
    const run = await inProcess(command, flag);
    expect(run).toMatchObject({ status: 0, stderr: '' });
    expect(run.stdout).toMatch(new RegExp(`^usage: feverlink3 ${command}`));
  });

  it('help wins over other arguments, right or wrong', async () => {
    for (const args of [['host', '--bogus', '-h'], ['join', GOLDEN, '--name', 'x', '--help'], ['demo', '--players', '99', '-h']]) {
      const run = await inProcess(...args);
      expect(run.status).toBe(0);
      expect(run.stdout).toMatch(new RegExp(`^usage: feverlink3 ${args[0]}`));
    }
  });

  it('the top level: --help and `help COMMAND` exit 0; nothing or an unknown command exits 2', async () => {
    expect(await inProcess('--help')).toMatchObject({ status: 0, stderr: '' });
    expect((await inProcess('help', 'join')).stdout).toMatch(/^usage: feverlink3 join CODE/);
    const none = await inProcess();
    expect(none.status).toBe(2);
    expect(none.stderr.split('\n')[0]).toBe('feverlink3: missing the command');
    const unknown = await inProcess('hots');
    expect(unknown.status).toBe(2);
    expect(unknown.stderr.split('\n')[0]).toBe('feverlink3: unknown command "hots"');
  });
});

describe('wrong options and arguments: one line, the usage, status 2', () => {
  const cases: [string, string[], RegExp][] = [
    ['code', [], /^missing the join code/],
    ['code', [GOLDEN, '--bogus'], /^unknown option --bogus$/],
    ['code', [GOLDEN, '--json=1'], /^--json takes no value$/],
    ['host', ['--bogus'], /^unknown option --bogus$/],
    ['host', ['--listen'], /^--listen needs a value/],
    ['host', ['--listen', 'nowhere'], /^--listen: expected HOST:PORT, got "nowhere"$/],
    ['host', ['--listen', '127.0.0.1:70000'], /^--listen: expected HOST:PORT/],
    ['host', ['--max-players', 'lots'], /^--max-players: expected a whole number from 1 to 64, got "lots"$/],
    ['host', ['--game', 'tf2'], /^--game: expected sim or none, got "tf2"$/],
    ['host', ['--bots', '-1'], /^--bots: expected a whole number from 0 to 64/],
    ['host', ['--throttle', '9'], /^--throttle: expected a number more than 0, at most 4/],
    ['host', ['stray'], /^unexpected argument "stray"$/],
    ['join', [], /^missing the join code/],
    ['join', [GOLDEN], /^missing --name NAME$/],
    ['join', ['NOTACODE', '--name', 'bob'], /^not a FeverLink3 join code/],
    ['join', [GOLDEN, '--name', 'bob', '--bot-rate', 'fast'], /^--bot-rate: expected a number from 0 to 60000/],
    ['join', [GOLDEN, '--name'], /^--name needs a value/],
    ['demo', ['--players', '9'], /^--players: expected a whole number from 1 to 8, got "9"$/],
    ['demo', ['--seconds', '0'], /^--seconds: expected more than 0/],
    ['demo', ['--speeds', '1,3'], /^--speeds: expected a list of 1, 2, 4/],
    ['demo', ['--throttle', '5:0.5'], /^--throttle: expected PLAYER:FACTOR/],
    ['demo', ['--seed', 'x'], /^--seed: expected a whole number/],
    ['demo', ['now'], /^unexpected argument "now"$/],
    ['simgame', ['--bogus', '1'], /^unknown option --bogus$/],
    ['simgame', ['--seed'], /^--seed needs a value$/],
    ['simgame', ['--bots', 'many'], /^--bots: bad value "many"$/],
    ['simgame', [], /^give --session-dir and one of --save/],
  ];
  it.each(cases)('feverlink3 %s %j', async (command, args, problem) => {
    expectUsageError(await inProcess(command, ...args), command, problem);
  });
});

describe('the real binary: no stack trace for a person\'s mistake', () => {
  it('help, a usage error, a bad join code and an unknown command', async () => {
    const [help, bogus, badCode, unknown] = await Promise.all([
      feverlink3('join', '-h'),
      feverlink3('host', '--bogus'),
      feverlink3('join', 'AAAA', '--name', 'bob'),
      feverlink3('nope'),
    ]);
    expect(help.status).toBe(0);
    expect(help.stdout).toMatch(/^usage: feverlink3 join CODE --name NAME/);
    expectUsageError(bogus, 'host', /^unknown option --bogus$/);
    expectUsageError(badCode, 'join', /^not a FeverLink3 join code/);
    expect(unknown.status).toBe(2);
    expect(unknown.stderr).not.toMatch(/^\s+at /m);
  });
});
