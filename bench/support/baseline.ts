// The raw baselines of the latency bench, measured in the same run: the round trip of a small message over a
// plain node:net echo on 127.0.0.1, and the one-way latency of a line appended to a file and seen through the
// same tail reader the file link uses (adapters/fileLink/lineReader.ts, its default poll and fs.watch).
import { open } from 'node:fs/promises';
import { createServer, connect, type AddressInfo, type Socket } from 'node:net';
import { join } from 'node:path';
import { tailLines } from '../../adapters/fileLink/lineReader.ts';
import { paced } from './stats.ts';

/** A wait for "all arrived": `poke(true)` resolves it; it rejects after `timeoutMs`; `cancel()` drops its timer. */
export interface Completion {
  poke(done: boolean): void;
  cancel(): void;
  readonly promise: Promise<void>;
}

/** A {@link Completion} named `what` (for the timeout message). */
export function completion(timeoutMs: number, what: string): Completion {
  let resolve!: () => void;
  let reject!: (error: Error) => void;
  const promise = new Promise<void>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  // A wait nobody awaits any more (an earlier step failed) must not end the process as an unhandled rejection.
  promise.catch(() => undefined);
  const timer = setTimeout(() => reject(new Error(`timed out after ${timeoutMs} ms waiting for ${what}`)), timeoutMs);
  return {
    promise,
    poke(done) {
      if (!done) return;
      clearTimeout(timer);
      resolve();
    },
    cancel() {
      clearTimeout(timer);
    },
  };
}

/** Round trips (ms) of `bytes`-byte messages over a plain TCP echo on 127.0.0.1, one every `intervalMs`. */
export async function rawTcpRoundTrips(count: number, intervalMs: number, bytes = 64): Promise<number[]> {
  const server = createServer({ noDelay: true }, (socket) => socket.pipe(socket));
  await new Promise<void>((resolve) => server.listen({ host: '127.0.0.1', port: 0 }, resolve));
  const { port } = server.address() as AddressInfo;
  const socket: Socket = connect({ host: '127.0.0.1', port, noDelay: true });
  await new Promise<void>((resolve, reject) => {
    socket.once('connect', resolve);
    socket.once('error', reject);
  });
  const message = Buffer.alloc(bytes, 0x61);
  const samples: number[] = [];
  let pending: { got: number; sentAt: number; done: () => void } | undefined;
  socket.on('data', (chunk: Buffer) => {
    if (!pending) return;
    pending.got += chunk.length;
    if (pending.got >= bytes) {
      samples.push(performance.now() - pending.sentAt);
      const { done } = pending;
      pending = undefined;
      done();
    }
  });
  try {
    await paced(count, intervalMs, () => {
      const echoed = new Promise<void>((done) => {
        pending = { got: 0, sentAt: performance.now(), done };
      });
      socket.write(message);
      return echoed;
    });
  } finally {
    socket.destroy();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }
  return samples;
}

/**
 * One-way latency (ms) of a line appended to a file (an `a`-mode handle, one write per line, as a game writes its
 * from_game.log) until the tail reader hands it out; one line every `intervalMs`.
 */
export async function rawFileOneWay(dir: string, count: number, intervalMs: number): Promise<number[]> {
  const path = join(dir, 'raw_lines.log');
  const file = await open(path, 'a');
  const tail = tailLines({ path });
  const sentAt: number[] = [];
  const samples: number[] = [];
  const all = completion(10_000, 'the raw file lines');
  const sub = tail.lines.subscribe((text) => {
    const n = Number(text.slice(0, text.indexOf('\t')));
    const at = sentAt[n];
    if (at !== undefined) samples.push(performance.now() - at);
    all.poke(samples.length === count);
  });
  try {
    await tail.readNow();
    await paced(count, intervalMs, async (i) => {
      sentAt[i] = performance.now();
      await file.write(`${i}\t{"body":"a line about as long as an action line of the game, give or take"}\n`);
    });
    await all.promise;
  } finally {
    all.cancel();
    sub.unsubscribe();
    await tail.close();
    await file.close();
  }
  return samples;
}

/** How a relay run went: messages per second end to end, and the process's CPU per message. */
export interface RelayResult {
  count: number;
  seconds: number;
  perSecond: number;
  cpuUsPerMessage: number;
}

/** Messages allowed in flight (sent, not yet at the slower receiver): both relays run under the same window. */
export const RELAY_WINDOW = 1000;
/** Messages the sender writes before it yields to the event loop. */
export const RELAY_BATCH = 100;

/**
 * Drives a relay run: `send(i)` for i = 0..count-1 as fast as the window allows, yielding every batch; resolves when
 * `arrived()` (the slower receiver's count) reaches `count`, which the caller reports through `poke`.
 */
export async function driveRelay(
  count: number,
  send: (i: number) => void,
  arrived: () => number,
  done: Completion,
): Promise<RelayResult> {
  const cpu = process.cpuUsage();
  const start = performance.now();
  let sent = 0;
  while (sent < count) {
    const limit = Math.min(count, arrived() + RELAY_WINDOW, sent + RELAY_BATCH);
    while (sent < limit) send(sent++);
    await new Promise<void>((resolve) => setImmediate(resolve));
  }
  await done.promise;
  const seconds = (performance.now() - start) / 1000;
  const used = process.cpuUsage(cpu);
  return { count, seconds, perSecond: count / seconds, cpuUsPerMessage: (used.user + used.system) / count };
}

/**
 * The raw relay: plain node:net sockets on 127.0.0.1, a sender, a relay that writes every chunk it reads to two
 * receivers, and receivers that count `bytes`-byte messages. No framing, sealing or session: the floor for the host.
 */
export async function rawRelayRate(count: number, bytes: number): Promise<RelayResult> {
  const receivers: Socket[] = [];
  const relay = createServer({ noDelay: true }, (socket) => {
    socket.on('data', (chunk: Buffer) => {
      for (const r of receivers) r.write(chunk);
    });
  });
  const sink = createServer({ noDelay: true }, (socket) => {
    let got = 0;
    socket.on('data', (chunk: Buffer) => {
      got += chunk.length;
      counts[sinks.indexOf(socket)] = Math.floor(got / bytes);
      done.poke(Math.min(...counts) >= count);
    });
    sinks.push(socket);
  });
  const sinks: Socket[] = [];
  const counts = [0, 0];
  const done = completion(20_000, 'the raw relay');
  const listen = async (server: ReturnType<typeof createServer>) => {
    await new Promise<void>((resolve) => server.listen({ host: '127.0.0.1', port: 0 }, resolve));
    return (server.address() as AddressInfo).port;
  };
  const dial = (port: number) =>
    new Promise<Socket>((resolve, reject) => {
      const socket = connect({ host: '127.0.0.1', port, noDelay: true });
      socket.once('connect', () => resolve(socket));
      socket.once('error', reject);
    });
  const relayPort = await listen(relay);
  const sinkPort = await listen(sink);
  const opened: Socket[] = [];
  try {
    for (let i = 0; i < 2; i++) opened.push(await dial(sinkPort));
    while (sinks.length < 2) await new Promise<void>((resolve) => setImmediate(resolve));
    receivers.push(...opened);
    const sender = await dial(relayPort);
    opened.push(sender);
    const message = Buffer.alloc(bytes, 0x62);
    return await driveRelay(count, () => sender.write(message), () => Math.min(...counts), done);
  } finally {
    done.cancel();
    for (const socket of [...opened, ...sinks]) socket.destroy();
    await new Promise<void>((resolve) => relay.close(() => resolve()));
    await new Promise<void>((resolve) => sink.close(() => resolve()));
  }
}
