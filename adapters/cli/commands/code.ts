// `feverlink3 code CODE [--json] [--show-secret]`: decodes a join code (spec: wire-protocol "Join code")
// and prints what it holds, for people (one line per fact) or for scripts (exactly one JSON line).
// The secret is printed only when asked for: it is the session's key material.
import { toHex } from '../../../protocol/bytes.ts';
import { decodeJoinCode, type JoinCode } from '../../../protocol/joinCode.ts';
import { parseCommandLine, usageText, type CommandSpec } from '../args.ts';
import { writeErr, writeOut } from '../stdio.ts';

export const spec = {
  name: 'code',
  synopsis: ['code CODE [--json] [--show-secret]'],
  about: 'prints what a join code holds: its version, when it was made, the endpoints (status 1: not a join code)',
  operands: { name: 'the join code (CODE)', min: 1 },
  options: {
    json: { type: 'boolean', help: 'print exactly one JSON line' },
    'show-secret': { type: 'boolean', help: "also print the secret (the session's key material)" },
  },
} as const satisfies CommandSpec;

export const usage = usageText(spec);

/** The one line `--json` prints (the field order is fixed; "secret" only with --show-secret). */
function toJson(code: JoinCode, showSecret: boolean): string {
  const out: Record<string, unknown> = {
    version: code.version,
    created: code.created,
    endpoints: code.endpoints.map(({ host, port }) => ({ host, port })),
  };
  if (showSecret) out.secret = toHex(code.secret);
  return JSON.stringify(out);
}

/** Unix seconds as ISO 8601 UTC to the second ("2023-11-14T22:13:20Z"). */
function isoTime(seconds: number): string {
  return new Date(seconds * 1000).toISOString().replace('.000Z', 'Z');
}

function toText(code: JoinCode, showSecret: boolean): string {
  const endpoints = code.endpoints.map(({ host, port }) => (host.includes(':') ? `[${host}]:${port}` : `${host}:${port}`));
  const lines = [
    `version    ${code.version}`,
    `created    ${isoTime(code.created)}`,
    `endpoints  ${endpoints[0] ?? '(none)'}`,
    ...endpoints.slice(1).map((e) => `           ${e}`),
  ];
  if (showSecret) lines.push(`secret     ${toHex(code.secret)}`);
  return lines.join('\n');
}

/** Runs the command; returns the exit status (0 ok, 1 not a join code; a UsageError for the rest). */
export async function run(args: readonly string[]): Promise<number> {
  const parsed = parseCommandLine(spec, args);
  if (parsed.help) {
    writeOut(`${usage}\n`);
    return 0;
  }
  const { json, 'show-secret': showSecret } = parsed.values;
  // A code pasted with spaces arrives as several arguments; the decoder ignores the spaces.
  const code = decodeJoinCode(parsed.operands.join(' '));
  if (code === undefined) {
    writeErr('feverlink3 code: not a FeverLink3 join code\n');
    return 1;
  }
  writeOut(`${json ? toJson(code, showSecret) : toText(code, showSecret)}\n`);
  return 0;
}
