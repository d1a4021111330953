// An in-repo TCP fault proxy for the network-fault tests (reliability-tests §5, §7.5): Toxiproxy's toxics
// on loopback, since neither Toxiproxy nor netem runs here. Each direction of each proxied connection runs
// its bytes through a chain of toxics: slicer, coalesce, latency, bandwidth, blackhole, reset, limit_data.
// It lives with the adapters (moved from test/support, issue 12) because `feverlink3 demo --drops` puts one between
// each player and the host and cuts the player's connection through it (`cutAll`, `cutAfter`).
import { connect, createServer, type AddressInfo, type Socket } from 'node:net';
import { buildChain, type PairControl, type Stage } from './faultStages.ts';
import { seededRandom } from './memoryLinkConditions.ts';

/** Re-exported: the proxy's tests replay their own splits with the same generator. */
export { seededRandom };

/** One fault. Toxics of a direction apply in order, to connections opened after they were set. */
export type Toxic =
  /** Splits every chunk into pieces of minBytes..maxBytes (1..7), each written on its own; after every `burst`
   *  pieces (default 1) it waits 1..maxDelayMs ms with probability delayChance, else one event-loop turn. */
  | { type: 'slicer'; minBytes?: number; maxBytes?: number; maxDelayMs?: number; delayChance?: number; burst?: number }
  /** Merges the stream into chunks of exactly chunkBytes; a rest is flushed after flushMs without a full one. */
  | { type: 'coalesce'; chunkBytes: number; flushMs?: number }
  /** Delays every chunk by ms ± jitterMs, order kept. */
  | { type: 'latency'; ms: number; jitterMs?: number }
  /** Passes at most bytesPerSecond (a slow link; the proxy stops reading its source while it holds too much). */
  | { type: 'bandwidth'; bytesPerSecond: number }
  /** Drops every byte and holds the connection open (Toxiproxy's `timeout` with 0). */
  | { type: 'blackhole' }
  /** Resets both sides (RST) afterMs after the connection opened. */
  | { type: 'reset'; afterMs?: number }
  /** Passes the first `bytes` bytes in this direction, then closes both sides. */
  | { type: 'limit_data'; bytes: number };

/** upstream: client → target; downstream: target → client. */
export type Direction = 'upstream' | 'downstream';

export interface FaultProxy {
  readonly host: string;
  readonly port: number;
  /** Toxics for connections opened from now on. */
  setToxics(direction: Direction, toxics: Toxic[]): void;
  /** Connections currently proxied. */
  readonly connections: number;
  /** Resets (RST) every proxied connection now, both sides. */
  resetAll(): void;
  /** Cuts every connection proxied now (RST, both sides, what is in flight lost); returns how many. */
  cutAll(): number;
  /**
   * Each connection proxied now passes at most `bytes` more bytes in `direction` (counted as read from its source,
   * so a cut can fall inside a frame), then is cut: those bytes are delivered and ended, and both sides closed. Returns
   * how many connections were armed. A later call replaces the budget.
   */
  cutAfter(bytes: number, direction: Direction): number;
  /** Connections accepted since the start. */
  readonly opened: number;
  close(): Promise<void>;
}

export interface FaultProxyOptions {
  target: { host: string; port: number };
  host?: string;
  upstream?: Toxic[];
  downstream?: Toxic[];
  /** Seed of the proxy's random choices (piece sizes, delays), so a failing run can be replayed. */
  seed?: number;
}

/** Bytes a direction may hold (in toxics and in the outgoing socket) before it stops reading its source. */
const HIGH_WATER = 64 * 1024;

/** How long a cut connection's last bytes get to leave before both sides are closed. */
const CUT_FLUSH_MS = 20;

/**
 * Pipes `source` into `chain`, pausing the source while the chain holds more than HIGH_WATER bytes. With a budget
 * (cutAfter) the bytes past it are never passed: the chain is ended after the last allowed byte and the pair closed.
 */
function pump(source: Socket, chain: Stage, control: PairControl, direction: Direction): void {
  let watching: ReturnType<typeof setInterval> | undefined;
  let cut = false;
  source.on('data', (data: Buffer) => {
    if (cut) return;
    let chunk = data;
    const left = control.budget[direction];
    if (left !== undefined && chunk.length >= left) {
      cut = true;
      chunk = chunk.subarray(0, left);
      if (chunk.length > 0) chain.write(chunk);
      chain.end();
      source.pause();
      setTimeout(() => control.close(), CUT_FLUSH_MS);
      return;
    }
    if (left !== undefined) control.budget[direction] = left - chunk.length;
    chain.write(chunk);
    if (watching === undefined && chain.held() > HIGH_WATER) {
      source.pause();
      watching = setInterval(() => {
        if (chain.held() <= HIGH_WATER / 2 || source.destroyed) {
          clearInterval(watching);
          watching = undefined;
          source.resume();
        }
      }, 5);
    }
  });
  source.on('end', () => chain.end());
  source.on('close', () => {
    if (watching !== undefined) clearInterval(watching);
  });
}

/** Starts the proxy on 127.0.0.1 (or `host`), port chosen by the system. */
export async function startFaultProxy(options: FaultProxyOptions): Promise<FaultProxy> {
  const toxics: Record<Direction, Toxic[]> = { upstream: options.upstream ?? [], downstream: options.downstream ?? [] };
  const random = seededRandom(options.seed ?? 1);
  const pairs = new Set<PairControl>();
  const server = createServer({ noDelay: true, allowHalfOpen: true });

  let opened = 0;
  server.on('connection', (client: Socket) => {
    opened++;
    // Half-open on both sockets: each direction ends on its own, after its toxics let the last bytes through.
    const { host, port } = options.target;
    const target = connect({ host, port, noDelay: true, allowHalfOpen: true });
    let stopped = false;
    const chains: Stage[] = [];
    const stop = (): void => {
      if (stopped) return;
      stopped = true;
      pairs.delete(control);
      for (const chain of chains) chain.stop();
    };
    const control: PairControl = {
      random,
      budget: { upstream: undefined, downstream: undefined },
      reset: () => {
        stop();
        client.resetAndDestroy();
        if (target.connecting) target.destroy();
        else target.resetAndDestroy();
      },
      close: () => {
        stop();
        client.destroy();
        target.destroy();
      },
    };
    pairs.add(control);
    const up = buildChain(toxics.upstream, target, control);
    const down = buildChain(toxics.downstream, client, control);
    chains.push(up, down);
    pump(client, up, control, 'upstream');
    pump(target, down, control, 'downstream');
    // A reset on one side is passed on as a reset; any other failure closes the other side.
    const onError = (other: Socket) => (error: NodeJS.ErrnoException) => {
      stop();
      if (error.code === 'ECONNRESET' && !other.destroyed && !other.connecting) other.resetAndDestroy();
      else other.destroy();
    };
    client.on('error', onError(target));
    target.on('error', onError(client));
    const closed = (): void => {
      if (client.destroyed && target.destroyed) pairs.delete(control);
    };
    client.on('close', closed);
    target.on('close', closed);
  });

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen({ host: options.host ?? '127.0.0.1', port: 0 }, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const bound = server.address() as AddressInfo;
  return {
    host: bound.address,
    port: bound.port,
    setToxics(direction, list) {
      toxics[direction] = [...list];
    },
    get connections() {
      return pairs.size;
    },
    resetAll() {
      for (const pair of [...pairs]) pair.reset();
    },
    cutAll() {
      const all = [...pairs];
      for (const pair of all) pair.reset();
      return all.length;
    },
    cutAfter(bytes, direction) {
      const all = [...pairs];
      for (const pair of all) pair.budget[direction] = Math.max(0, Math.floor(bytes));
      return all.length;
    },
    get opened() {
      return opened;
    },
    close() {
      for (const pair of [...pairs]) pair.close();
      return new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
