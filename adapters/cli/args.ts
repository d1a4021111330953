// The one command-line parser every command uses: `--name value`, `--name=value`, boolean flags, operands,
// `--` to end the options, and `-h` / `--help` anywhere (before `--`, and not as an option's value) asks for
// the usage. Anything wrong is a UsageError whose message is the one line a person reads; the caller
// (main.ts) prints it with the command's usage and exits 2. The usage text is made from the same spec.
import { UsageError } from './failure.ts';

export type OptionSpec =
  | { readonly type: 'string'; readonly arg: string; readonly help: string; readonly default?: string; readonly required?: boolean }
  | { readonly type: 'boolean'; readonly help: string };

export interface CommandSpec<O extends Readonly<Record<string, OptionSpec>> = Readonly<Record<string, OptionSpec>>> {
  /** The command's name (`host`). */
  readonly name: string;
  /** The synopsis lines after `feverlink3 `, the first one the main form. */
  readonly synopsis: readonly string[];
  /** What the command does, a line or two. */
  readonly about: string;
  /** The operands (words that are not options): their name in messages and how many. */
  readonly operands?: { readonly name: string; readonly min: number; readonly max?: number };
  readonly options: O;
  /** Lines printed after the options (examples, terminal commands). */
  readonly notes?: readonly string[];
}

export type Values<O> = {
  -readonly [K in keyof O]: O[K] extends { type: 'boolean' }
    ? boolean
    : O[K] extends { default: string }
      ? string
      : O[K] extends { required: true }
        ? string
        : string | undefined;
};

export type Parsed<O> = { help: true } | { help: false; values: Values<O>; operands: string[] };

const HELP_FLAGS = new Set(['-h', '--help']);

/** Parses `args` by `spec`; throws a UsageError for anything the spec does not allow. */
export function parseCommandLine<O extends Readonly<Record<string, OptionSpec>>>(spec: CommandSpec<O>, args: readonly string[]): Parsed<O> {
  const values: Record<string, string | boolean | undefined> = {};
  for (const [name, option] of Object.entries(spec.options)) {
    values[name] = option.type === 'boolean' ? false : option.default;
  }
  const operands: string[] = [];
  let problem: string | undefined;
  const fail = (text: string) => {
    problem ??= text;
  };
  for (let i = 0; i < args.length; i++) {
    const arg = args[i]!;
    if (arg === '--') {
      operands.push(...args.slice(i + 1));
      break;
    }
    if (HELP_FLAGS.has(arg)) return { help: true };
    if (!arg.startsWith('-') || arg === '-') {
      operands.push(arg);
      continue;
    }
    const eq = arg.indexOf('=');
    const flag = eq > 0 && arg.startsWith('--') ? arg.slice(0, eq) : arg;
    const name = flag.startsWith('--') ? flag.slice(2) : undefined;
    const option = name !== undefined && Object.hasOwn(spec.options, name) ? spec.options[name] : undefined;
    if (name === undefined || option === undefined) {
      fail(`unknown option ${flag}`);
      continue;
    }
    if (option.type === 'boolean') {
      if (eq > 0 && flag !== arg) fail(`${flag} takes no value`);
      else values[name] = true;
      continue;
    }
    if (flag !== arg) {
      values[name] = arg.slice(eq + 1);
      continue;
    }
    const value = args[i + 1];
    if (value === undefined) {
      fail(`${flag} needs a value (${option.arg})`);
      continue;
    }
    // An option's value may start with a dash (a password "-x"); it is taken as the value, never as a flag.
    values[name] = value;
    i += 1;
  }
  if (problem !== undefined) throw new UsageError(problem);
  const { operands: counts } = spec;
  const allowed = counts === undefined ? 0 : (counts.max ?? Infinity);
  if (operands.length > allowed) throw new UsageError(`unexpected argument ${JSON.stringify(operands[allowed])}`);
  if (counts !== undefined && operands.length < counts.min) throw new UsageError(`missing ${counts.name}`);
  for (const [name, option] of Object.entries(spec.options)) {
    if (option.type === 'string' && option.required && values[name] === undefined) {
      throw new UsageError(`missing --${name} ${option.arg}`);
    }
  }
  return { help: false, values: values as Values<O>, operands };
}

/** The usage text: synopsis, what it does, one line per option, the notes. */
export function usageText(spec: CommandSpec): string {
  const [first, ...more] = spec.synopsis;
  const lines = [`usage: feverlink3 ${first}`, ...more.map((s) => `       feverlink3 ${s}`), '', `  ${spec.about}`];
  const rows = Object.entries(spec.options).map(([name, o]) => {
    const left = o.type === 'boolean' ? `--${name}` : `--${name} ${o.arg}`;
    const right = o.type === 'string' && o.default !== undefined ? `${o.help} (default ${o.default})` : o.help;
    return [left, right] as const;
  });
  rows.push(['-h, --help', 'print this usage and exit']);
  const width = Math.max(...rows.map(([left]) => left.length)) + 2;
  lines.push('', 'options:', ...rows.map(([left, right]) => `  ${left.padEnd(width)}${right}`));
  if (spec.notes?.length) lines.push('', ...spec.notes.map((n) => `  ${n}`));
  return lines.join('\n');
}

/** A whole number from `min` to `max` written in decimal digits; otherwise a UsageError naming the option. */
export function wholeNumber(option: string, text: string, min: number, max: number): number {
  const n = /^\d{1,15}$/.test(text) ? Number(text) : NaN;
  if (!(n >= min && n <= max)) throw new UsageError(`${option}: expected a whole number from ${min} to ${max}, got ${JSON.stringify(text)}`);
  return n;
}

/** A decimal number (`0.5`, `12`) that `accept` allows; otherwise a UsageError saying what is `expected`. */
export function decimalNumber(option: string, text: string, accept: (n: number) => boolean, expected: string): number {
  const n = /^\d{1,15}(\.\d{1,15})?$/.test(text) ? Number(text) : NaN;
  if (!Number.isFinite(n) || !accept(n)) throw new UsageError(`${option}: expected ${expected}, got ${JSON.stringify(text)}`);
  return n;
}
