// Seal + open throughput of the wire layer (protocol/seal.ts over adapters/crypto/nodeCrypto.ts) against raw
// node:crypto AES-256-GCM measured in the same run, interleaved round by round so machine noise hits both.
// Targets (wire brief): 256 KiB ≥ 0.8 of raw, 100 B ≥ 0.5 of raw. Also: a broadcast sealed once for 7 receivers vs
// sealed per receiver, and @noble for reference. Prints only; asserts nothing.
import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import { nodeCrypto } from '../adapters/crypto/nodeCrypto.ts';
import type { Crypto } from '../protocol/crypto.ts';
import { FrameError, decodeWireFrame } from '../protocol/frame.ts';
import { nobleCrypto } from '../protocol/nobleCrypto.ts';
import { Opener, Sealer } from '../protocol/seal.ts';

const ROUND_MS = 25;
const PAIRS = 24;
const SMALL = 100;
const LARGE = 256 * 1024;
const BROADCAST_BYTES = 16 * 1024;
const RECEIVERS = 7;

interface Sample {
  ops: number;
  wallMs: number;
  cpuUs: number;
}

/** Runs `op` for about `ms` of wall time; counts the process's CPU time too (robust when the cores are shared). */
function sample(op: () => void, ms: number): Sample {
  let ops = 0;
  const cpu = process.cpuUsage();
  const start = performance.now();
  let now = start;
  while (now - start < ms) {
    op();
    ops++;
    now = performance.now();
  }
  const used = process.cpuUsage(cpu);
  return { ops, wallMs: now - start, cpuUs: used.user + used.system };
}

function quantile(values: number[], q: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]!;
}

interface Comparison {
  /** Wall-clock ops/s of each case over all its rounds. */
  opsA: number;
  opsB: number;
  /** Median and quartiles of (CPU per op of A) / (CPU per op of B) over adjacent A-B-B-A rounds. */
  ratio: number;
  q1: number;
  q3: number;
}

/**
 * Interleaves A and B as A B B A, round after round, so a load swing on the machine hits both; the ratio of each
 * pair is taken from CPU time per op, and the median over the pairs is reported.
 */
function compare(a: () => void, b: () => void, pairs = PAIRS, ms = ROUND_MS): Comparison {
  sample(a, ms);
  sample(b, ms);
  const ratios: number[] = [];
  const total = { a: { ops: 0, wallMs: 0 }, b: { ops: 0, wallMs: 0 } };
  for (let i = 0; i < pairs; i++) {
    const [a1, b1, b2, a2] = [sample(a, ms), sample(b, ms), sample(b, ms), sample(a, ms)];
    for (const [key, s] of [['a', a1], ['b', b1], ['b', b2], ['a', a2]] as const) {
      total[key].ops += s.ops;
      total[key].wallMs += s.wallMs;
    }
    const cpuPerOpA = (a1.cpuUs + a2.cpuUs) / (a1.ops + a2.ops);
    const cpuPerOpB = (b1.cpuUs + b2.cpuUs) / (b1.ops + b2.ops);
    ratios.push(cpuPerOpA / cpuPerOpB);
  }
  return {
    opsA: (total.a.ops * 1000) / total.a.wallMs,
    opsB: (total.b.ops * 1000) / total.b.wallMs,
    ratio: quantile(ratios, 0.5),
    q1: quantile(ratios, 0.25),
    q3: quantile(ratios, 0.75),
  };
}

function ratioText(c: Comparison): string {
  return `ratio ${c.ratio.toFixed(2)} (quartiles ${c.q1.toFixed(2)}–${c.q3.toFixed(2)})`;
}

/** Raw node:crypto GCM round trip: the baseline (ct and tag kept apart, no framing). */
function rawRoundTrip(size: number): () => void {
  const key = randomBytes(32);
  const aad = Buffer.alloc(12, 1);
  const nonce = Buffer.alloc(12);
  const payload = randomBytes(size);
  let counter = 0n;
  return () => {
    nonce.writeBigUInt64BE(++counter, 4);
    const cipher = createCipheriv('aes-256-gcm', key, nonce, { authTagLength: 16 });
    cipher.setAAD(aad);
    const ct = cipher.update(payload);
    cipher.final();
    const tag = cipher.getAuthTag();
    const decipher = createDecipheriv('aes-256-gcm', key, nonce, { authTagLength: 16 });
    decipher.setAAD(aad);
    decipher.setAuthTag(tag);
    decipher.update(ct);
    decipher.final();
  };
}

/** Sealer.seal → one wire buffer → decodeWireFrame (views) → Opener.open. */
function wireRoundTrip(crypto: Crypto, size: number): () => void {
  const key = crypto.aesGcm(randomBytes(32));
  const sealer = new Sealer(key, 1);
  const opener = new Opener(key);
  const payload = new Uint8Array(randomBytes(size));
  return () => {
    const frame = decodeWireFrame(sealer.seal(50, payload));
    if (frame instanceof FrameError || !opener.open(frame).ok) throw new Error('round trip failed');
  };
}

function row(label: string, size: number, ops: number, ratio?: string): void {
  const mbs = ((ops * size) / 1e6).toFixed(1);
  const tail = ratio ? `  ${ratio}` : '';
  console.log(`${label.padEnd(40)} ${Math.round(ops).toString().padStart(9)} ops/s ${mbs.padStart(9)} MB/s${tail}`);
}

export async function run(): Promise<void> {
  console.log(
    `seal+open round trip; ${PAIRS} interleaved A-B-B-A rounds of ${ROUND_MS} ms; ops/s, MB/s (payload): wall time;` +
      '\nratio = raw CPU per op / ours (median over the pairs; 1.0 = as fast as raw)',
  );
  for (const [size, label, target] of [[SMALL, '100 B', 0.5], [LARGE, '256 KiB', 0.8]] as const) {
    const c = compare(rawRoundTrip(size), wireRoundTrip(nodeCrypto, size));
    row(`raw node:crypto AES-256-GCM ${label}`, size, c.opsA);
    const verdict = `target ≥ ${target}: ${c.ratio >= target ? 'met' : 'MISSED'}`;
    row(`Sealer/Opener (node) ${label}`, size, c.opsB, `${ratioText(c)} ${verdict}`);
  }

  // A host sends one payload to 7 players: sealed once (one frame, one counter, written to 7 sockets) vs 7 times.
  const key = nodeCrypto.aesGcm(randomBytes(32));
  const payload = new Uint8Array(randomBytes(BROADCAST_BYTES));
  const once = new Sealer(key, 0);
  const each = new Sealer(key, 0);
  const b = compare(
    () => {
      for (let i = 0; i < RECEIVERS; i++) each.seal(50, payload);
    },
    () => void once.seal(50, payload),
  );
  console.log(`broadcast of ${BROADCAST_BYTES / 1024} KiB to ${RECEIVERS} receivers (seal cost only)`);
  row(`  sealed per receiver (${RECEIVERS} seals)`, BROADCAST_BYTES, b.opsA);
  row('  sealed once', BROADCAST_BYTES, b.opsB, `once is ${b.ratio.toFixed(1)}× cheaper`);

  // Reference only: the pure-JS implementation (inspector, differential tests), never the launcher's hot path.
  for (const [size, label] of [[SMALL, '100 B'], [LARGE, '256 KiB']] as const) {
    const s = sample(wireRoundTrip(nobleCrypto, size), 400);
    row(`Sealer/Opener (noble) ${label}, reference`, size, (s.ops * 1000) / s.wallMs);
  }
}
