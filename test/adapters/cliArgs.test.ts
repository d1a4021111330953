// The command-line parser every command uses (adapters/cli/args.ts): options with values in both forms, flags,
// operands, `--`, -h/--help anywhere, and one clear UsageError line for each kind of mistake.
import { describe, expect, it } from 'vitest';
import { decimalNumber, parseCommandLine, usageText, wholeNumber, type CommandSpec } from '../../adapters/cli/args.ts';
import { UsageError } from '../../adapters/cli/failure.ts';

const spec = {
  name: 'try',
  synopsis: ['try CODE --name NAME [--json]'],
  about: 'a command for the tests',
  operands: { name: 'CODE', min: 1, max: 2 },
  options: {
    name: { type: 'string', arg: 'NAME', help: 'a name', required: true },
    listen: { type: 'string', arg: 'HOST:PORT', help: 'where', default: '127.0.0.1:0' },
    password: { type: 'string', arg: 'PW', help: 'a password' },
    json: { type: 'boolean', help: 'one JSON line' },
  },
} as const satisfies CommandSpec;

function problem(args: string[]): string {
  try {
    parseCommandLine(spec, args);
  } catch (error) {
    expect(error).toBeInstanceOf(UsageError);
    return (error as Error).message;
  }
  throw new Error('parsed');
}

describe('parseCommandLine', () => {
  it('reads values in both forms, flags, defaults and operands', () => {
    expect(parseCommandLine(spec, ['ABC', '--name', 'Ann', '--json'])).toEqual({
      help: false,
      values: { name: 'Ann', listen: '127.0.0.1:0', password: undefined, json: true },
      operands: ['ABC'],
    });
    const parsed = parseCommandLine(spec, ['--name=Ben', '--listen=0.0.0.0:1', 'A', 'B']);
    expect(parsed).toMatchObject({ values: { name: 'Ben', listen: '0.0.0.0:1', json: false }, operands: ['A', 'B'] });
  });

  it('takes a value that starts with a dash as the value, and `--` ends the options', () => {
    expect(parseCommandLine(spec, ['X', '--name', 'a', '--password', '-h'])).toMatchObject({ values: { password: '-h' } });
    expect(parseCommandLine(spec, ['--name', 'a', '--', '--json'])).toMatchObject({ values: { json: false }, operands: ['--json'] });
  });

  it('-h and --help win wherever they stand, even after a mistake', () => {
    for (const args of [['-h'], ['--help'], ['--bogus', '--help'], ['X', '--name', 'a', '-h']]) {
      expect(parseCommandLine(spec, args)).toEqual({ help: true });
    }
  });

  it('says in one line what is wrong', () => {
    expect(problem(['X', '--name', 'a', '--bogus'])).toBe('unknown option --bogus');
    expect(problem(['X', '--name', 'a', '-x'])).toBe('unknown option -x');
    expect(problem(['X', '--name'])).toBe('--name needs a value (NAME)');
    expect(problem(['X', '--name', 'a', '--json=yes'])).toBe('--json takes no value');
    expect(problem(['--name', 'a'])).toBe('missing CODE');
    expect(problem(['X'])).toBe('missing --name NAME');
    expect(problem(['A', 'B', 'C', '--name', 'a'])).toBe('unexpected argument "C"');
    for (const args of [['--bogus'], ['--name'], []]) expect(problem(args)).not.toContain('\n');
  });

  it('refuses operands a command does not take', () => {
    const none = { name: 'n', synopsis: ['n'], about: 'n', options: {} } as const satisfies CommandSpec;
    expect(() => parseCommandLine(none, ['x'])).toThrow('unexpected argument "x"');
  });
});

describe('usageText', () => {
  it('has the synopsis first, every option with its default, and -h', () => {
    const text = usageText(spec);
    expect(text.split('\n')[0]).toBe('usage: feverlink3 try CODE --name NAME [--json]');
    expect(text).toMatch(/--listen HOST:PORT +where \(default 127\.0\.0\.1:0\)/);
    expect(text).toMatch(/--json +one JSON line/);
    expect(text).toMatch(/-h, --help +print this usage and exit/);
  });
});

describe('numbers', () => {
  it('whole numbers: digits only, within the range', () => {
    expect(wholeNumber('--n', '8', 1, 64)).toBe(8);
    for (const bad of ['0', '65', '-1', '1.5', '0x10', '1e1', '', ' 8', 'eight']) {
      expect(() => wholeNumber('--n', bad, 1, 64)).toThrow(`--n: expected a whole number from 1 to 64, got ${JSON.stringify(bad)}`);
    }
  });

  it('decimal numbers: digits with an optional fraction, as `accept` allows', () => {
    expect(decimalNumber('--s', '0.5', (n) => n > 0, 'more than 0')).toBe(0.5);
    for (const bad of ['0', '-1', '.5', 'NaN', 'Infinity', '1e3', '']) {
      expect(() => decimalNumber('--s', bad, (n) => n > 0 && n < 100, 'more than 0')).toThrow(UsageError);
    }
  });
});
