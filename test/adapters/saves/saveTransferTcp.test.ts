// End to end over real TCP on 127.0.0.1 (issue 11 item 2): a few MiB save read from a real temp file, streamed by
// the host's SaveSender over the transport's own connections (FramedConnection, its bounded write queue), opened and
// decoded by each player through the fast base64 port, written by each player's SaveReceiver to its own folder and
// checked: every player ends with the host's exact file.
import { randomBytes } from 'node:crypto';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, expect, it } from 'vitest';
import type { Connection } from '../../../actors/ports.ts';
import { nodeBase64 } from '../../../adapters/base64/nodeBase64.ts';
import { realClock } from '../../../adapters/clock.ts';
import { nodeCrypto } from '../../../adapters/crypto/nodeCrypto.ts';
import { hashFile } from '../../../adapters/saves/hashFile.ts';
import { SaveReceiver, type SaveReceived } from '../../../adapters/saves/saveReceiver.ts';
import { SaveSender, transferPeerOf } from '../../../adapters/saves/saveSender.ts';
import { connectTcp, listenTcp } from '../../../adapters/transport/tcp.ts';
import { decodeChunkPayload, Kind } from '../../../protocol/messages/index.ts';
import { Opener, Sealer } from '../../../protocol/seal.ts';

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'fl3-tcp-'));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

it('streams a 6 MiB save over 127.0.0.1 to three players, each of whom ends with the exact file', async () => {
  const key = nodeCrypto.aesGcm(nodeCrypto.randomBytes(32));
  const path = join(dir, 'host.sav');
  const data = randomBytes(6 * 1_048_576 + 4321);
  await writeFile(path, data);
  const digest = await hashFile(path);

  const listener = await listenTcp({ host: '127.0.0.1', port: 0 });
  const accepted: Connection[] = [];
  const allAccepted = new Promise<void>((resolve) =>
    listener.onConnection((conn) => {
      accepted.push(conn);
      if (accepted.length === 3) resolve();
    }),
  );
  const players = await Promise.all([1, 2, 3].map(() => connectTcp({ host: '127.0.0.1', port: listener.port })));
  await allAccepted;

  const received = players.map(async (conn, i) => {
    const into = join(dir, `player${i + 1}`);
    await mkdir(into);
    const opener = new Opener(key);
    return new Promise<SaveReceived>((resolve, reject) => {
      const receiver = new SaveReceiver({ dir: into, clock: realClock, onReceived: resolve });
      conn.onFrame((frame) => {
        const opened = opener.open(frame);
        if (!opened.ok || frame.header.kind !== Kind.ResyncChunk) return reject(new Error('bad frame'));
        const chunk = decodeChunkPayload('ResyncChunk', opened.payload, nodeBase64);
        if (!chunk.ok) return reject(new Error(chunk.reason));
        receiver.accept(chunk.value);
      });
    });
  });

  const sealer = new Sealer(key, 0);
  const sender = new SaveSender(
    { id: 3, path, ...digest, sealChunk: (p) => sealer.seal(Kind.ResyncChunk, p), base64: nodeBase64, clock: realClock, spoolDir: dir },
    new Map(accepted.map((conn, i) => [i + 1, transferPeerOf(conn)])),
  );
  const result = await sender.start();
  expect(result).toMatchObject({ done: [1, 2, 3], gone: [], sealed: 25, intact: true });
  const saves = await Promise.all(received);
  for (const save of saves) {
    expect(save).toMatchObject({ id: 3, sha256: digest.sha256, bytes: data.length });
    expect(Buffer.compare(await readFile(save.path), data)).toBe(0);
  }
  for (const conn of players) conn.close('done');
  await listener.close('done');
});
