// `feverlink3 demo --drops` (issue 12 "Done when"): the players' connections cut at seeded random moments. Each player
// is given a join code naming its own TCP fault proxy (adapters/transport/faultProxy.ts) in this process, in front of
// the host; a cut resets the player's connection at once, or lets a random number of bytes more through first (so it
// falls inside a frame). The launchers reconnect by themselves; what they printed is counted here (measured, never
// assumed): `connection lost (…)` is a drop, `reconnected after … (resumed…)` a resume.
import { decodeJoinCode, encodeJoinCode } from '../../protocol/joinCode.ts';
import { startFaultProxy, type Direction, type FaultProxy } from '../transport/faultProxy.ts';
import { mixSeed, seededRandom } from '../transport/memoryLinkConditions.ts';

/** One planned cut: when (ms after the session started), whose connection, and how. */
export type DropCut =
  | { atMs: number; player: number; kind: 'reset' }
  | { atMs: number; player: number; kind: 'midFrame'; bytes: number; direction: Direction };

/** The part of the run the cuts fall in: after the start settled, well before the end. */
const FIRST_SHARE = 0.15;
const LAST_SHARE = 0.8;
/** A mid-frame cut lets 1..MAX_CUT_BYTES more bytes through (a few frames' worth: Clock and PeerClock are ~100 B). */
const MAX_CUT_BYTES = 3000;

/**
 * `perPlayer` cuts for each player (index 1..players−1), in time order: the cut window is split into `perPlayer` equal
 * slots and each cut falls at a random moment of its slot, so a player's cuts are spread over the run. Half of them
 * (at random) are mid-frame cuts. The same seed gives the same plan.
 */
export function planDrops(o: { players: number; seconds: number; perPlayer: number; seed: number }): DropCut[] {
  const random = seededRandom(mixSeed(o.seed, 12));
  const from = o.seconds * 1000 * FIRST_SHARE;
  const slot = (o.seconds * 1000 * (LAST_SHARE - FIRST_SHARE)) / Math.max(1, o.perPlayer);
  const cuts: DropCut[] = [];
  for (let player = 1; player < o.players; player++) {
    for (let k = 0; k < o.perPlayer; k++) {
      const atMs = Math.round(from + slot * (k + random()));
      if (random() < 0.5) cuts.push({ atMs, player, kind: 'reset' });
      else {
        const bytes = 1 + Math.floor(random() * MAX_CUT_BYTES);
        cuts.push({ atMs, player, kind: 'midFrame', bytes, direction: random() < 0.5 ? 'upstream' : 'downstream' });
      }
    }
  }
  return cuts.sort((a, b) => a.atMs - b.atMs || a.player - b.player);
}

export interface DropProxies {
  /** The join code player `i` is given: the host's secret, the player's proxy as the only endpoint. */
  codeFor(player: number): string;
  /** Makes the cut on the player's proxy; returns the connections it hit (0: the player had none). */
  cut(cut: DropCut): number;
  close(): Promise<void>;
}

/** One proxy per player (1..players−1) in front of the host's first endpoint of `code`. */
export async function startDropProxies(code: string, players: number, seed: number): Promise<DropProxies> {
  const decoded = decodeJoinCode(code);
  const target = decoded?.endpoints[0];
  if (!decoded || !target) throw new Error('the host gave a join code the demo cannot read');
  const proxies = new Map<number, { proxy: FaultProxy; code: string }>();
  try {
    for (let i = 1; i < players; i++) {
      const proxy = await startFaultProxy({ target, seed: mixSeed(seed, 100 + i) });
      const mine = encodeJoinCode({ created: decoded.created, secret: decoded.secret, endpoints: [{ host: proxy.host, port: proxy.port }] });
      proxies.set(i, { proxy, code: mine });
    }
  } catch (error) {
    await Promise.all([...proxies.values()].map((p) => p.proxy.close()));
    throw error;
  }
  return {
    codeFor: (i) => proxies.get(i)?.code ?? code,
    cut: (c) => {
      const p = proxies.get(c.player)?.proxy;
      if (!p) return 0;
      return c.kind === 'reset' ? p.cutAll() : p.cutAfter(c.bytes, c.direction);
    },
    close: async () => {
      await Promise.all([...proxies.values()].map((p) => p.proxy.close()));
    },
  };
}

/** What a player's launcher printed about its connection (adapters/cli/commands/join.ts). */
export interface ReconnectCounts {
  /** `connection lost (…)`: the session went away. */
  drops: number;
  /** `reconnected after … (resumed…)`: the same id back. */
  resumes: number;
  /** Of the resumes, those the host could not catch up (`resumed, the world is reloaded`). */
  reloads: number;
  /** `reconnected after … (a new player…)`: the host made it a plain join. */
  rejoins: number;
  /** `reconnect gave up`. */
  gaveUp: number;
}

export function countReconnects(lines: readonly string[]): ReconnectCounts {
  const out: ReconnectCounts = { drops: 0, resumes: 0, reloads: 0, rejoins: 0, gaveUp: 0 };
  for (const line of lines) {
    if (line.startsWith('connection lost (')) out.drops++;
    else if (line.startsWith('reconnected after ')) {
      if (line.includes('(a new player')) out.rejoins++;
      else {
        out.resumes++;
        if (line.includes('the world is reloaded')) out.reloads++;
      }
    } else if (line.startsWith('reconnect gave up')) out.gaveUp++;
  }
  return out;
}
