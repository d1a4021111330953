// `feverlink3 code` as a real process (node bin/feverlink3.js): the golden code of reliability-tests §3
// and a code made by an independent encoder written here (its own base32, noble's SHA-256, not
// protocol/joinCode.ts), in JSON and human form, plus the failures. Five spawns, about 0.5 s each.
import { execFile } from 'node:child_process';
import { resolve } from 'node:path';
import { sha256 } from '@noble/hashes/sha2.js';
import { describe, expect, it } from 'vitest';

const root = resolve(import.meta.dirname, '../..');
const GOLDEN = 'AFSVH4IAAAAQEAYEAUDAOCAJBIFQYDIOB4AQI7YAAAAWTB32UZUFQ';

interface Run {
  status: number;
  stdout: string;
  stderr: string;
}

function feverlink3(...args: string[]): Promise<Run> {
  return new Promise((done) => {
    execFile(process.execPath, ['bin/feverlink3.js', ...args], { cwd: root, timeout: 20_000 }, (error, stdout, stderr) => {
      const status = error === null ? 0 : typeof error.code === 'number' ? error.code : -1;
      done({ status, stdout, stderr });
    });
  });
}

/** The spec's layout written out by hand: a second encoder that shares no code with ours. */
function independentJoinCode(created: number, secret: number[], endpoints: [4 | 6, number[], number][]): string {
  const bytes = [1, created >>> 24, (created >>> 16) & 255, (created >>> 8) & 255, created & 255, ...secret];
  bytes.push(endpoints.length);
  for (const [family, address, port] of endpoints) bytes.push(family, ...address, port >> 8, port & 255);
  bytes.push(...sha256(Uint8Array.from(bytes)).slice(0, 4));
  const bits = bytes.map((b) => b.toString(2).padStart(8, '0')).join('');
  const padded = bits.padEnd(Math.ceil(bits.length / 5) * 5, '0');
  let text = '';
  for (let i = 0; i < padded.length; i += 5) text += 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567'[parseInt(padded.slice(i, i + 5), 2)];
  return text;
}

const SECRET = [0xde, 0xad, 0xbe, 0xef, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 0xfe, 0xff];
const OTHER = independentJoinCode(1_234_567_890, SECRET, [
  [4, [192, 168, 1, 20], 27015],
  [6, [0x20, 0x01, 0x0d, 0xb8, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0x42], 443],
  [6, [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff, 10, 0, 0, 1], 1],
]);

describe('feverlink3 code (real process)', () => {
  it('prints exactly one JSON line for the golden code', async () => {
    const run = await feverlink3('code', GOLDEN, '--json');
    expect(run).toEqual({
      status: 0,
      stdout: '{"version":1,"created":1700000000,"endpoints":[{"host":"127.0.0.1","port":27015}]}\n',
      stderr: '',
    });
  });

  it('reads an independently made code given as several arguments, with the secret when asked', async () => {
    // Three arguments, as a shell passes a code pasted with spaces: one lower case, one with dashes.
    const spaced = [OTHER.slice(0, 20).toLowerCase(), OTHER.slice(20, 40).replace(/(.{5})/g, '$1-'), OTHER.slice(40)];
    const run = await feverlink3('code', '--json', ...spaced, '--show-secret');
    expect(run.stderr).toBe('');
    expect(run.status).toBe(0);
    expect(run.stdout).toBe(
      '{"version":1,"created":1234567890,"endpoints":[{"host":"192.168.1.20","port":27015},' +
        '{"host":"2001:db8::42","port":443},{"host":"::ffff:10.0.0.1","port":1}],' +
        '"secret":"deadbeef00010203040506070809feff"}\n',
    );
  });

  it('prints the human form: ISO time, one endpoint per line, IPv6 in brackets, no secret', async () => {
    const run = await feverlink3('code', OTHER);
    expect(run.status).toBe(0);
    expect(run.stdout).toContain('2009-02-13T23:31:30Z');
    const lines = run.stdout.trimEnd().split('\n');
    expect(lines.filter((l) => l.endsWith('192.168.1.20:27015'))).toHaveLength(1);
    expect(lines.filter((l) => l.endsWith('[2001:db8::42]:443'))).toHaveLength(1);
    expect(lines.filter((l) => l.endsWith('[::ffff:10.0.0.1]:1'))).toHaveLength(1);
    expect(run.stdout).not.toContain('deadbeef');
  });

  it('a code that fails the check: status 1, the message on stderr, nothing on stdout', async () => {
    const bad = GOLDEN.slice(0, 10) + (GOLDEN[10] === 'A' ? 'B' : 'A') + GOLDEN.slice(11);
    const run = await feverlink3('code', bad, '--json');
    expect(run.status).toBe(1);
    expect(run.stdout).toBe('');
    expect(run.stderr).toContain('not a FeverLink3 join code');
  });

  it('no code: usage on stderr, status 2', async () => {
    const run = await feverlink3('code', '--json');
    expect(run.status).toBe(2);
    expect(run.stdout).toBe('');
    expect(run.stderr).toContain('usage: feverlink3 code CODE');
  });
});
