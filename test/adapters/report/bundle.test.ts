// The host's ONE zip (adapters/report/bundleWriter.ts) from the parts of several launchers, each sent as ReportPart
// chunks (chunkFileSender.ts → the chunk codec → chunkFileReceiver.ts), read back with fflate: a folder per game,
// report.json listing the missing game and why, no part over its bound, no home path left; bad parts refused.
import { readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { unzipSync, zipSync } from 'fflate';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SimulatedClock } from 'xstate';
import { nodeBase64 } from '../../../adapters/base64/nodeBase64.ts';
import { BundleWriter } from '../../../adapters/report/bundleWriter.ts';
import { ChunkFileReceiver, type ReceivedFile } from '../../../adapters/report/chunkFileReceiver.ts';
import { sendFileChunks } from '../../../adapters/report/chunkFileSender.ts';
import { collectPart, type CollectedPart } from '../../../adapters/report/collectPart.ts';
import { readPart } from '../../../adapters/report/readPart.ts';
import { MAX_SAVE_BYTES } from '../../../machines/rules/resyncChunks.ts';
import { REPORT_INDEX_FORMAT, type ReportIndex } from '../../../machines/rules/reportIndex.ts';
import { decodeChunkPayload } from '../../../protocol/messages/index.ts';
import { HOST, sessionFolder, tempDir, USER } from './reportSupport.ts';

const SALT = 'c2FsdA';
const PART_BOUND = 60_000;
let root: string;

beforeAll(async () => {
  root = await tempDir();
});
afterAll(async () => {
  await rm(root, { recursive: true, force: true });
});

/** A launcher sends `path` as ReportPart chunks through the wire codec into the host's receiver. */
async function transfer(receiver: ChunkFileReceiver, from: number, id: number, part: { path: string; bytes: number; sha256: string }) {
  const payloads: Uint8Array[] = [];
  const sent = await sendFileChunks({ id, ...part, base64: nodeBase64, write: (p) => payloads.push(p), clock: new SimulatedClock() });
  expect(sent.ok).toBe(true);
  for (const bytes of payloads) {
    const decoded = decodeChunkPayload('ReportPart', bytes, nodeBase64);
    if (!decoded.ok) throw new Error(decoded.reason);
    expect(receiver.accept(from, decoded.value)).toEqual({ outcome: 'accepted' });
  }
  return payloads.length;
}

function waitFor<T>(register: (resolve: (v: T) => void) => void): Promise<T> {
  return new Promise(register);
}

describe('the host builds ONE zip from the parts', () => {
  it('holds a folder per game that sent its part, report.json names the missing game and why, no part over its bound', async () => {
    const games = [0, 1, 2];
    const parts: CollectedPart[] = [];
    for (const g of games) {
      const dir = await sessionFolder(root, `s${g}`, g === 2 ? { bigOldBytes: 400_000 } : {});
      parts.push(await collectPart({ sessionDir: dir, outPath: join(root, `part-${g}.zip`), maxBytes: PART_BOUND, salt: SALT, names: [USER, HOST] }));
    }
    for (const p of parts) expect(p.bytes).toBeLessThanOrEqual(PART_BOUND);

    const writer = await BundleWriter.create(join(root, 'feverlink3-report-1.zip'));
    // The host's own part (game 0) goes straight in; game 2's part travels as ReportPart chunks; game 1 never sends.
    expect(await writer.addPart(0, parts[0]!.path, PART_BOUND)).toMatchObject({ ok: true });
    const done = waitFor<ReceivedFile>((resolve) => {
      const r = new ChunkFileReceiver({ dir: root, what: 'report part', onComplete: resolve });
      r.expect(13, { from: 2, maxBytes: PART_BOUND, fileName: 'received-part-2.zip' });
      void transfer(r, 2, 13, parts[2]!);
    });
    const received = await done;
    expect(received).toMatchObject({ id: 13, from: 2, sha256: parts[2]!.sha256, bytes: parts[2]!.bytes });
    expect(await writer.addPart(2, received.path, PART_BOUND)).toMatchObject({ ok: true });

    const built = await writer.finish({
      report: 1,
      session: 'a1b2c3d4e5f60718',
      askedBy: { id: 2, name: 'Ada' },
      note: 'the bridge vanished',
      hostVersion: '0.1.0',
      protocol: 1,
      players: [
        { id: 0, name: 'Host', version: '0.1.0' },
        { id: 1, name: 'Bob', version: '0.1.0' },
        { id: 2, name: 'Ada', version: '0.1.0' },
      ],
      askedAt: Date.UTC(2026, 11, 1, 10, 0, 0),
      builtAt: Date.UTC(2026, 11, 1, 10, 1, 0),
      missing: [{ id: 1, name: 'Bob', why: 'no part after 60 s' }],
    });
    const zip = await readFile(built.path);
    expect(zip.length).toBe(built.bytes);
    const files = unzipSync(zip);
    const folders = new Set(Object.keys(files).map((n) => n.split('/')[0]));
    expect([...folders].sort()).toEqual(['game-0', 'game-2', 'report.json']);
    for (const g of [0, 2]) {
      expect(Object.keys(files)).toContain(`game-${g}/launcher.log`);
      expect(Object.keys(files)).toContain(`game-${g}/trace.jsonl`);
      const bytes = Object.entries(files).filter(([n]) => n.startsWith(`game-${g}/`)).reduce((s, [, d]) => s + d.length, 0);
      expect(bytes).toBeLessThanOrEqual(PART_BOUND);
    }
    const index = JSON.parse(new TextDecoder().decode(files['report.json'])) as ReportIndex;
    expect(index).toMatchObject({ format: REPORT_INDEX_FORMAT, report: 1, session: 'a1b2c3d4e5f60718', note: 'the bridge vanished' });
    expect(index.missing).toEqual([{ id: 1, name: 'Bob', why: 'no part after 60 s' }]);
    expect(index.players.find((p) => p.id === 1)).toEqual({ id: 1, name: 'Bob', missing: 'no part after 60 s' });
    expect(index.players.find((p) => p.id === 2)).toMatchObject({ folder: 'game-2' });
    expect(index.times).toEqual({ asked: '2026-12-01T10:00:00.000Z', built: '2026-12-01T10:01:00.000Z', seconds: 60 });
    expect(index.versions.players).toEqual({ '0': '0.1.0', '1': '0.1.0', '2': '0.1.0' });
    // The bundle travels to the asker as ReportBundle chunks and arrives whole.
    const delivered = await waitFor<ReceivedFile>((resolve) => {
      const asker = new ChunkFileReceiver({ dir: root, what: 'report bundle', onComplete: resolve });
      asker.expect(4, { from: 0, maxBytes: MAX_SAVE_BYTES, fileName: 'feverlink3-report-1-received.zip' });
      void sendFileChunks({ id: 4, ...built, base64: nodeBase64, clock: new SimulatedClock(), write: (p) => {
        const decoded = decodeChunkPayload('ReportBundle', p, nodeBase64);
        if (!decoded.ok) throw new Error(decoded.reason);
        expect(asker.accept(0, decoded.value)).toEqual({ outcome: 'accepted' });
      } });
    });
    expect(delivered).toMatchObject({ from: 0, bytes: built.bytes, sha256: built.sha256 });
    expect(Buffer.from(await readFile(delivered.path)).equals(zip)).toBe(true);
    // No home path and no user name left anywhere in the zip.
    for (const [name, data] of Object.entries(files)) {
      const t = new TextDecoder().decode(data);
      expect(t, name).not.toMatch(new RegExp(`(home|Users)(/|\\\\+)${USER}`, 'i'));
      expect(t, name).not.toContain(USER);
    }
  });

  it('a part is refused whole when it is not a zip, names a path, comes with a folder, or inflates past its bound', async () => {
    const bad: [string, Uint8Array, string][] = [
      ['not a zip', new TextEncoder().encode('PK this is not a zip at all'.repeat(50)), ''],
      ['traversal', zipSync({ '../evil.log': new TextEncoder().encode('x') }), 'entry name not allowed'],
      ['folder', zipSync({ 'sub/inner.log': new TextEncoder().encode('x') }), 'entry name not allowed'],
      ['hidden', zipSync({ '.bashrc': new TextEncoder().encode('x') }), 'entry name not allowed'],
      ['bomb', zipSync({ 'big.log': new Uint8Array(5_000_000) }, { level: 9 }), 'over its bound'],
    ];
    const writer = await BundleWriter.create(join(root, 'bad.zip'));
    for (const [label, bytes, why] of bad) {
      const path = join(root, `bad-${label}.zip`);
      await writeFile(path, bytes);
      if (label === 'bomb') expect(bytes.length).toBeLessThan(PART_BOUND);
      const read = await readPart(path, PART_BOUND);
      expect(read.ok, label).toBe(false);
      if (!read.ok) expect(read.why, label).toContain(why);
      expect(await writer.addPart(7, path, PART_BOUND), label).toMatchObject({ ok: false });
    }
    const built = await writer.finish({
      report: 2, session: 's', askedBy: { id: 0, name: 'Host' }, hostVersion: '0.1.0', protocol: 1,
      players: [{ id: 7, name: 'Eve' }], askedAt: 0, builtAt: 0, missing: [{ id: 7, name: 'Eve', why: 'part refused: not a zip' }],
    });
    expect(Object.keys(unzipSync(await readFile(built.path)))).toEqual(['report.json']);
  });
});

describe('ReportPart chunks are checked like save chunks', () => {
  const SHA = 'ab'.repeat(32);
  const full = new Uint8Array(262_144);
  const chunk = (over: Partial<{ id: number; index: number; count: number; sha256: string; data: Uint8Array }>) => ({ id: 5, index: 0, count: 2, sha256: SHA, data: full, ...over });

  it('refuses an unknown transfer, another sender, a bad sha256, count or index, a short middle chunk, a count over the bound, a changed count', () => {
    const receiver = new ChunkFileReceiver({ dir: root, what: 'report part' });
    receiver.expect(5, { from: 3, maxBytes: 2 * 262_144, fileName: 'p5.zip' });
    const why = (from: number, c: ReturnType<typeof chunk>) => {
      const r = receiver.accept(from, c);
      return r.outcome === 'refused' ? r.why : r.outcome;
    };
    expect(why(3, chunk({ id: 6 }))).toBe('unknown transfer');
    expect(why(4, chunk({}))).toBe('not the asked sender');
    expect(why(3, chunk({ sha256: 'xyz' }))).toMatch(/^sha256/);
    expect(why(3, chunk({ count: 0 }))).toMatch(/^count/);
    expect(why(3, chunk({ index: 2 }))).toMatch(/^index/);
    expect(why(3, chunk({ data: new Uint8Array(10) }))).toMatch(/^size/);
    expect(why(3, chunk({ count: 3 }))).toBe('over the bound');
    expect(why(3, chunk({}))).toBe('accepted');
    expect(why(3, chunk({}))).toBe('duplicate');
    expect(why(3, chunk({ index: 1, count: 1 }))).toMatch(/^index/);
    expect(why(3, chunk({ index: 1, sha256: 'cd'.repeat(32), data: new Uint8Array(5) }))).toMatch(/^another sha256/);
    expect(receiver.refused).toBe(9);
    return receiver.close();
  });

  it('a whole part whose bytes do not hash to its sha256 is refused and forgotten', async () => {
    const failed = await waitFor<{ id: number; from: number; why: string }>((resolve) => {
      const receiver = new ChunkFileReceiver({ dir: root, what: 'report part', onFailed: resolve, onComplete: () => resolve({ id: -1, from: -1, why: 'completed' }) });
      receiver.expect(9, { from: 1, maxBytes: 1000, fileName: 'p9.zip' });
      expect(receiver.accept(1, { id: 9, index: 0, count: 1, sha256: SHA, data: new Uint8Array([1, 2, 3]) })).toEqual({ outcome: 'accepted' });
    });
    expect(failed).toEqual({ id: 9, from: 1, why: 'sha256 mismatch' });
  });

  it('a transfer not complete 10 minutes after it was expected is forgotten and reported failed', async () => {
    const clock = new SimulatedClock();
    const failed: { id: number; why: string }[] = [];
    const receiver = new ChunkFileReceiver({ dir: root, what: 'report bundle', clock, onFailed: (f) => failed.push(f) });
    receiver.expect(4, { from: 0, maxBytes: 4 * 262_144, fileName: 'b4.zip' });
    expect(receiver.accept(0, chunk({ id: 4, count: 2 }))).toEqual({ outcome: 'accepted' });
    clock.increment(600_000 - 1);
    expect(receiver.expected).toEqual([4]);
    clock.increment(1);
    expect(receiver.expected).toEqual([]);
    expect(failed).toEqual([{ id: 4, from: 0, why: 'unfinished after 600 s' }]);
    expect(receiver.accept(0, chunk({ id: 4, index: 1, count: 2, data: new Uint8Array(1) }))).toEqual({ outcome: 'refused', why: 'unknown transfer' });
    await receiver.close();
  });
});
