// Resync save transfer (issue 11 item 10): a 256 MiB save (FEVERLINK3_BENCH_RESYNC_MIB to change) from the host to 7
// players on 127.0.0.1, each player its own process (this file forked with --resync-receiver). Measured in the same
// run, interleaved raw / raw+rx / save, three times (FEVERLINK3_BENCH_RESYNC_ROUNDS):
//   raw:    read 256 KiB, SHA-256, seal once (the bare data), write the frame to 7 sockets; the players count bytes.
//   raw+rx: the same, with players that open each frame, hash it and write it to a file (the pipeline mirrored; the
//           writes batched like SaveReceiver's).
//   save: hashFile (the announcement) + SaveSender (encode through nodeBase64, seal once, bounded queues, spool) to 7
//         players that open, decode, check, write a temp file and verify the SHA-256 (SaveReceiver).
// Prints seconds, MiB/s, the ratios save/raw and save/raw+rx (the goal, ≥ 0.7, is read against raw+rx: the raw
// pipeline end to end, its receivers included, see docs/DECISIONS.md "Resync bench: the goal's raw pipeline"), the
// CPU per chunk of the host (this process), of the average player and of all together, with the same ratios by CPU
// (less noisy than seconds on a shared machine: 8 processes on 2 cores are CPU-bound), and the peak RSS of the host
// and of the players (goal < 256 MiB: the save is never whole in memory). Asserts nothing.
// FEVERLINK3_BENCH_RESYNC_SAVE_ONLY=1 runs the save alone; FEVERLINK3_BENCH_RESYNC_PROFILE=<dir> runs the first player
// under --cpu-prof (run the bench itself under `node --cpu-prof` for the host's side).
import { fork, type ChildProcess } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdtemp, open, rm } from 'node:fs/promises';
import { createServer, type AddressInfo, type Socket } from 'node:net';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { nodeBase64 } from '../adapters/base64/nodeBase64.ts';
import { realClock } from '../adapters/clock.ts';
import { nodeCrypto } from '../adapters/crypto/nodeCrypto.ts';
import { hashFile } from '../adapters/saves/hashFile.ts';
import { SaveReceiver } from '../adapters/saves/saveReceiver.ts';
import { SaveSender, transferPeerOf } from '../adapters/saves/saveSender.ts';
import { connectTcp, listenTcp } from '../adapters/transport/tcp.ts';
import { CHUNK_BYTES } from '../machines/rules/resyncChunks.ts';
import { decodeChunkPayload, Kind } from '../protocol/messages/index.ts';
import { Opener, Sealer } from '../protocol/seal.ts';

const RECEIVERS = Number(process.env.FEVERLINK3_BENCH_RESYNC_PLAYERS ?? 7);
const MIB = 1_048_576;

type Job = { mode: 'raw' | 'rawMirror' | 'save'; port: number; keyHex: string; dir: string; expectBytes: number };
/** A player's job done: its lifetime max RSS, its RSS sampled during the job (peak), its CPU time for the job. */
type Report = { done: true; maxRssMiB: number; peakRssMiB: number; cpuMs: number } | { done: false; error: string };

// ---- the player process ---------------------------------------------------------------------------------------

async function receiverMain(): Promise<void> {
  process.on('message', (raw) => {
    const job = raw as Job | { quit: true };
    if ('quit' in job) process.exit(0);
    const cpu = process.cpuUsage();
    let peak = process.memoryUsage.rss();
    const sampler = setInterval(() => (peak = Math.max(peak, process.memoryUsage.rss())), 50);
    void runJob(job)
      .then(
        () => {
          const used = process.cpuUsage(cpu);
          const peakRssMiB = Math.max(peak, process.memoryUsage.rss()) / MIB;
          const report: Report = { done: true, maxRssMiB: process.resourceUsage().maxRSS / 1024, peakRssMiB, cpuMs: (used.user + used.system) / 1000 };
          process.send!(report);
        },
        (error: unknown) => process.send!({ done: false, error: String(error) } satisfies Report),
      )
      .finally(() => clearInterval(sampler));
  });
  process.send!({ up: true });
}

async function runJob(job: Job): Promise<void> {
  const key = nodeCrypto.aesGcm(Buffer.from(job.keyHex, 'hex'));
  const conn = await connectTcp({ host: '127.0.0.1', port: job.port });
  await new Promise<void>((resolve, reject) => {
    if (job.mode === 'raw') {
      // The raw baseline's player reads the frames and counts the data; nothing else.
      let got = 0;
      conn.onFrame((frame) => {
        got += frame.body.length - 16;
        if (got >= job.expectBytes) resolve();
      });
      return;
    }
    if (job.mode === 'rawMirror') {
      // The raw pipeline mirrored on the player: open, SHA-256, write at its place in a file; no base64, no JSON. The
      // writes are batched like SaveReceiver's (everything that arrived since the last write, in one writev).
      const opener = new Opener(key);
      const hash = createHash('sha256');
      let got = 0;
      let writes = Promise.resolve();
      let unwritten: Uint8Array[] = [];
      let unwrittenAt = 0;
      const file = open(join(job.dir, 'raw.part'), 'w');
      conn.onFrame((frame) => {
        const opened = opener.open(frame);
        if (!opened.ok) return reject(new Error(`frame: ${opened.reason}`));
        const data = opened.payload;
        hash.update(data);
        if (unwritten.length === 0) {
          unwrittenAt = got;
          writes = writes.then(async () => {
            const [batch, at] = [unwritten, unwrittenAt];
            unwritten = [];
            await (await file).writev(batch, at);
          });
        }
        unwritten.push(data);
        got += data.length;
        if (got >= job.expectBytes) void writes.then(async () => (hash.digest(), await (await file).close(), resolve()));
      });
      return;
    }
    const opener = new Opener(key);
    const receiver = new SaveReceiver({ dir: job.dir, clock: realClock, onReceived: () => resolve() });
    conn.onFrame((frame) => {
      const opened = opener.open(frame);
      if (!opened.ok) return reject(new Error(`frame: ${opened.reason}`));
      const chunk = decodeChunkPayload('ResyncChunk', opened.payload, nodeBase64);
      if (!chunk.ok) return reject(new Error(chunk.reason));
      receiver.accept(chunk.value);
    });
  });
  conn.close('done');
}

// ---- the host (bench) side ------------------------------------------------------------------------------------

class Player {
  readonly child: ChildProcess;
  readonly up: Promise<void>;
  #waiter: ((r: Report) => void) | undefined;
  /** `profileDir`: this player runs under --cpu-prof, its profile written there when it quits. */
  constructor(profileDir?: string) {
    const prof = profileDir === undefined ? [] : ['--cpu-prof', '--cpu-prof-dir', profileDir];
    this.child = fork(import.meta.filename, ['--resync-receiver'], { execArgv: [...prof, '--import', 'tsx'], stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
    this.up = new Promise((resolve) => this.child.once('message', () => resolve()));
    this.child.on('message', (m) => {
      if ((m as { up?: boolean }).up) return;
      this.#waiter?.(m as Report);
    });
  }
  run(job: Job): Promise<Report> {
    return new Promise((resolve) => {
      this.#waiter = resolve;
      this.child.send(job);
    });
  }
}

async function writeSave(path: string, bytes: number): Promise<void> {
  const file = await open(path, 'w');
  const block = randomBytes(4 * MIB);
  for (let at = 0; at < bytes; at += block.length) {
    block[0] = at & 255; // no two blocks alike
    await file.write(block, 0, Math.min(block.length, bytes - at), at);
  }
  await file.close();
}

const cpuMs = (used: NodeJS.CpuUsage) => (used.user + used.system) / 1000;

/** CPU per 256 KiB chunk (ms): the host's, the average player's, and all processes' together (host + every player). */
function cpuPerChunk(hostCpuMs: number, results: Report[], chunks: number): { host: number; player: number; total: number } {
  const done = results.filter((r): r is Extract<Report, { done: true }> => r.done);
  const players = done.reduce((sum, r) => sum + r.cpuMs, 0);
  return { host: hostCpuMs / chunks, player: players / Math.max(1, done.length) / chunks, total: (hostCpuMs + players) / chunks };
}

/** The CPU per chunk of the host and of the average player, and the players' highest sampled RSS. */
function perChunk(hostCpuMs: number, results: Report[], chunks: number): string {
  const done = results.filter((r): r is Extract<Report, { done: true }> => r.done);
  const cpu = cpuPerChunk(hostCpuMs, results, chunks);
  const peak = Math.max(...done.map((r) => r.peakRssMiB));
  return `CPU/chunk host ${cpu.host.toFixed(2)} ms, player ${cpu.player.toFixed(2)} ms, all ${cpu.total.toFixed(2)} ms; player RSS ≤ ${peak.toFixed(0)} MiB`;
}

/** Peak RSS of this process while `work` runs, sampled every 20 ms (the bench's own process, not its lifetime). */
async function sampledRss<T>(work: () => Promise<T>): Promise<{ value: T; peakMiB: number }> {
  // process.memoryUsage.rss(), not memoryUsage(): the full call walks the heap (2.4 % of the host's profile at 20 ms)
  let peak = process.memoryUsage.rss();
  const timer = setInterval(() => (peak = Math.max(peak, process.memoryUsage.rss())), 20);
  try {
    const value = await work();
    return { value, peakMiB: Math.max(peak, process.memoryUsage.rss()) / MIB };
  } finally {
    clearInterval(timer);
  }
}

/** The raw pipeline: read, SHA-256, seal once, write the frame to every socket, waiting for the slowest to drain. */
async function rawSend(path: string, bytes: number, sockets: Socket[], sealer: Sealer): Promise<void> {
  const file = await open(path, 'r');
  const hash = createHash('sha256');
  const data = Buffer.allocUnsafe(CHUNK_BYTES);
  for (let at = 0; at < bytes; at += CHUNK_BYTES) {
    const { bytesRead } = await file.read(data, 0, Math.min(CHUNK_BYTES, bytes - at), at);
    hash.update(data.subarray(0, bytesRead));
    const frame = sealer.seal(Kind.ResyncChunk, data.subarray(0, bytesRead));
    const waits = sockets.filter((s) => !s.write(frame)).map((s) => new Promise((r) => s.once('drain', r)));
    if (waits.length > 0) await Promise.all(waits);
  }
  hash.digest();
  await file.close();
}

async function rawRun(players: Player[], path: string, bytes: number, keyHex: string, dir: string, mode: 'raw' | 'rawMirror') {
  const sockets: Socket[] = [];
  const server = createServer({ noDelay: true }, (s) => sockets.push(s));
  await new Promise<void>((r) => server.listen({ host: '127.0.0.1', port: 0 }, r));
  const port = (server.address() as AddressInfo).port;
  const started = performance.now();
  const cpu = process.cpuUsage();
  const reports = players.map((p, i) => p.run({ mode, port, keyHex, dir: join(dir, `p${i}`), expectBytes: bytes }));
  while (sockets.length < players.length) await new Promise((r) => setImmediate(r));
  const sealer = new Sealer(nodeCrypto.aesGcm(Buffer.from(keyHex, 'hex')), 0);
  const { peakMiB } = await sampledRss(() => rawSend(path, bytes, sockets, sealer));
  const results = await Promise.all(reports);
  const seconds = (performance.now() - started) / 1000;
  const hostCpuMs = cpuMs(process.cpuUsage(cpu));
  for (const s of sockets) s.destroy();
  server.close();
  return { seconds, hostPeakMiB: peakMiB, hostCpuMs, results };
}

async function saveRun(players: Player[], path: string, bytes: number, keyHex: string, dir: string) {
  const listener = await listenTcp({ host: '127.0.0.1', port: 0 });
  const conns: Parameters<Parameters<typeof listener.onConnection>[0]>[0][] = [];
  listener.onConnection((c) => conns.push(c));
  const started = performance.now();
  const cpu = process.cpuUsage();
  const reports = players.map((p, i) => p.run({ mode: 'save', port: listener.port, keyHex, dir: join(dir, `p${i}`), expectBytes: bytes }));
  while (conns.length < players.length) await new Promise((r) => setImmediate(r));
  const sealer = new Sealer(nodeCrypto.aesGcm(Buffer.from(keyHex, 'hex')), 0);
  let sentAt = 0;
  const { peakMiB, value: sent } = await sampledRss(async () => {
    const digest = await hashFile(path);
    const sender = new SaveSender(
      {
        id: 1,
        path,
        ...digest,
        sealChunk: (p) => sealer.seal(Kind.ResyncChunk, p),
        base64: nodeBase64,
        clock: realClock,
        spoolDir: dir,
        ...(process.env.FEVERLINK3_BENCH_RESYNC_WINDOW ? { windowChunks: Number(process.env.FEVERLINK3_BENCH_RESYNC_WINDOW) } : {}),
      },
      new Map(conns.map((c, i) => [i + 1, transferPeerOf(c)])),
    );
    const result = await sender.start();
    sentAt = performance.now();
    return result;
  });
  const results = await Promise.all(reports);
  const seconds = (performance.now() - started) / 1000;
  const hostCpuMs = cpuMs(process.cpuUsage(cpu));
  await listener.close('done');
  return { seconds, senderSeconds: (sentAt - started) / 1000, hostPeakMiB: peakMiB, hostCpuMs, results, spooled: sent.spooled };
}

export async function run(): Promise<void> {
  const mib = Number(process.env.FEVERLINK3_BENCH_RESYNC_MIB ?? 256);
  const bytes = mib * MIB;
  // Seven players on one VM would share one disk: their 7 × 256 MiB of writes measure the disk, not the transfer. The
  // players' folders (and the host's file) go to /dev/shm when there is one (FEVERLINK3_BENCH_RESYNC_DIR to choose).
  const base = process.env.FEVERLINK3_BENCH_RESYNC_DIR ?? (existsSync('/dev/shm') ? '/dev/shm' : tmpdir());
  const dir = await mkdtemp(join(base, 'fl3-resync-bench-'));
  try {
    const { mkdir } = await import('node:fs/promises');
    for (let i = 0; i < RECEIVERS; i++) await mkdir(join(dir, `p${i}`));
    const path = join(dir, 'host.sav');
    await writeSave(path, bytes);
    // A fresh key for every run: each run's sealer starts its counter at 1 again, and a nonce never repeats under a key.
    const freshKey = () => randomBytes(32).toString('hex');
    // FEVERLINK3_BENCH_RESYNC_PROFILE=<dir>: the first player runs under --cpu-prof (bench/support/cpuProfile.ts reads it).
    const profileDir = process.env.FEVERLINK3_BENCH_RESYNC_PROFILE;
    const players = Array.from({ length: RECEIVERS }, (_, i) => new Player(i === 0 ? profileDir : undefined));
    const chunks = Math.ceil(bytes / CHUNK_BYTES);
    await Promise.all(players.map((p) => p.up));
    console.log(`resync: a ${mib} MiB save to ${RECEIVERS} players on 127.0.0.1 (each player a process; files in ${base}), raw / save interleaved`);
    // The ratios by CPU move with the machine's load (all 0.82 at load 5, 0.62–0.80 per round at load 8–12 on
    // 2026-12-01): the load is printed with them.
    const load = () => loadavg().map((l) => l.toFixed(1)).join(' ');
    console.log(`  load average at the start: ${load()}`);
    const raws: number[] = [];
    const mirrors: number[] = [];
    const saves: number[] = [];
    // CPU per chunk of each run, by mode (CPU varies much less with the machine's load than seconds do)
    const cpus: Record<'raw' | 'rawMirror' | 'save', ReturnType<typeof cpuPerChunk>[]> = { raw: [], rawMirror: [], save: [] };
    // FEVERLINK3_BENCH_RESYNC_ROUNDS (default 3: the median of 2 was the worse one, and one round's CPU per chunk moves by
    // ±10 % with the machine's load) rounds of raw / raw+rx / save; FEVERLINK3_BENCH_RESYNC_SAVE_ONLY=1
    // leaves the raw runs out (a profile of the save alone).
    const rounds = Number(process.env.FEVERLINK3_BENCH_RESYNC_ROUNDS ?? 3);
    const rawModes = process.env.FEVERLINK3_BENCH_RESYNC_SAVE_ONLY === '1' ? [] : (['raw', 'rawMirror'] as const);
    for (let round = 0; round < rounds; round++) {
      for (const mode of rawModes) {
        const raw = await rawRun(players, path, bytes, freshKey(), dir, mode);
        const bad = raw.results.find((r) => !r.done);
        if (bad) throw new Error(`${mode}: ${(bad as { error: string }).error}`);
        (mode === 'raw' ? raws : mirrors).push(raw.seconds);
        cpus[mode].push(cpuPerChunk(raw.hostCpuMs, raw.results, chunks));
        const label = mode === 'raw' ? 'raw   ' : 'raw+rx';
        console.log(`  ${label} ${raw.seconds.toFixed(2)} s  ${(mib / raw.seconds).toFixed(1)} MiB/s  host peak RSS ${raw.hostPeakMiB.toFixed(0)} MiB  ${perChunk(raw.hostCpuMs, raw.results, chunks)}`);
      }
      const save = await saveRun(players, path, bytes, freshKey(), dir);
      const failed = save.results.find((r) => !r.done);
      if (failed) throw new Error(`save: ${(failed as { error: string }).error}`);
      saves.push(save.seconds);
      cpus.save.push(cpuPerChunk(save.hostCpuMs, save.results, chunks));
      const playerPeak = Math.max(...save.results.map((r) => (r.done ? r.maxRssMiB : 0)));
      console.log(
        `  save  ${save.seconds.toFixed(2)} s  ${(mib / save.seconds).toFixed(1)} MiB/s  (host done handing out at ${save.senderSeconds.toFixed(2)} s, ${save.spooled} chunks spooled)` +
          `  host peak RSS ${save.hostPeakMiB.toFixed(0)} MiB  player peak RSS ${playerPeak.toFixed(0)} MiB (lifetime max)  ${perChunk(save.hostCpuMs, save.results, chunks)}`,
      );
      for (let i = 0; i < RECEIVERS; i++) {
        await rm(join(dir, `p${i}`, 'feverlink3-resync-1.sav'), { force: true });
        await rm(join(dir, `p${i}`, 'raw.part'), { force: true });
      }
    }
    const best = (xs: number[]) => Math.min(...xs);
    const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
    const cpuRatio = (base: 'raw' | 'rawMirror', part: 'host' | 'player' | 'total') =>
      (median(cpus[base].map((c) => c[part])) / median(cpus.save.map((c) => c[part]))).toFixed(2);
    console.log(`  ratio save/raw (seconds, best of ${rounds} each): ${(best(raws) / best(saves)).toFixed(2)}  (raw players only count bytes)`);
    console.log(`  ratio save/raw+rx (seconds, best of ${rounds} each): ${(best(mirrors) / best(saves)).toFixed(2)}  (goal ≥ 0.7: players open, hash and write in both)`);
    if (cpus.raw.length > 0) {
      // The same comparison by CPU (median per chunk): all 8 processes together (what 2 shared cores divide), the host
      // alone (the bottleneck with a machine per player), the average player alone.
      console.log(`  CPU ratio save/raw+rx: all ${cpuRatio('rawMirror', 'total')}, host ${cpuRatio('rawMirror', 'host')}, player ${cpuRatio('rawMirror', 'player')}`);
      console.log(`  CPU ratio save/raw:    all ${cpuRatio('raw', 'total')}, host ${cpuRatio('raw', 'host')}, player ${cpuRatio('raw', 'player')}`);
    }
    console.log(`  load average at the end: ${load()}`);
    console.log(`  host lifetime max RSS ${(process.resourceUsage().maxRSS / 1024).toFixed(0)} MiB (includes the bench itself)`);
    for (const p of players) p.child.send({ quit: true });
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

if (process.argv.includes('--resync-receiver')) void receiverMain();
