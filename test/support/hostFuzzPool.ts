// The whole-host fuzz's pool: the host processes and peers a test started, ended after each test
// (test/hostile/hostFuzz*.test.ts).
import { killAll } from './cli.ts';
import { type FuzzHost, spawnFuzzHost } from './hostFuzzHost.ts';
import { freshLoopback, FuzzPeer } from './hostFuzzPeer.ts';

export const hosts: FuzzHost[] = [];
export const peers: FuzzPeer[] = [];
/** Ends every peer and host a test started. */
export async function endPool(): Promise<void> {
  for (const p of peers.splice(0)) p.destroy();
  await killAll();
  for (const h of hosts.splice(0)) h.cleanup();
}

export async function host(args: string[] = []): Promise<FuzzHost> {
  const h = await spawnFuzzHost(args);
  hosts.push(h);
  return h;
}

export async function peer(h: FuzzHost, name: string, honest: boolean, pongW?: () => unknown): Promise<FuzzPeer> {
  const from = honest ? {} : { localAddress: freshLoopback() };
  const p = await FuzzPeer.open(h.port, name, h.key, { autoPong: pongW ?? honest, keep: honest, ...from });
  peers.push(p);
  return p;
}

