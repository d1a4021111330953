// `feverlink3 code CODE [--json] [--show-secret]`: decodes a join code (spec: wire-protocol "Join code")
// and prints what it holds, for people (one line per fact) or for scripts (exactly one JSON line).
// The secret is printed only when asked for: it is the session's key material.
import { toHex } from '../../../protocol/bytes.ts';
import { decodeJoinCode, type JoinCode } from '../../../protocol/joinCode.ts';

const USAGE = 'usage: feverlink3 code CODE [--json] [--show-secret]';

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

/** Runs the command; returns the exit status (0 ok, 1 not a join code, 2 usage). */
export async function run(args: readonly string[]): Promise<number> {
  let json = false;
  let showSecret = false;
  const words: string[] = [];
  for (const arg of args) {
    if (arg === '--json') json = true;
    else if (arg === '--show-secret') showSecret = true;
    else if (arg === '--help' || arg === '-h') {
      process.stdout.write(`${USAGE}\n`);
      return 0;
    } else if (arg.startsWith('--')) {
      process.stderr.write(`feverlink3 code: unknown option ${arg}\n${USAGE}\n`);
      return 2;
    } else words.push(arg);
  }
  // A code pasted with spaces arrives as several arguments; the decoder ignores the spaces.
  const text = words.join(' ');
  if (text.trim() === '') {
    process.stderr.write(`${USAGE}\n`);
    return 2;
  }
  const code = decodeJoinCode(text);
  if (code === undefined) {
    process.stderr.write('feverlink3 code: not a FeverLink3 join code\n');
    return 1;
  }
  process.stdout.write(`${json ? toJson(code, showSecret) : toText(code, showSecret)}\n`);
  return 0;
}
