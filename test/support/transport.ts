// Per-test fixtures for the transport tests over real loopback TCP (adapters/transport; reliability-tests §7.4):
// a recording host listener, raw hostile sockets and well-behaved clients, each undone after the test.
import { afterEach } from 'vitest';
import type { Connection, Listener } from '../../actors/ports.ts';
import { connectTcp } from '../../adapters/transport/tcp.ts';
import type { Frame } from '../../protocol/frame.ts';
import { rawClient, startHost, type RawClient } from '../adapters/transport/support.ts';

/** A cleanup step run after the test. */
export type Cleanup = () => Promise<unknown> | void;

/** A well-behaved client connection with what it received and the reasons it was closed with. */
export interface TestClient {
  conn: Connection;
  frames: Frame[];
  closed: string[];
}

/** What transportFixture hands a test file; everything it opens is closed after each test. */
export interface TransportFixture {
  /** Runs `cleanup` after the current test; cleanups run newest first. */
  defer(cleanup: Cleanup): void;
  /** A recording listener on 127.0.0.1 (see startHost), closed with 'test-end'. */
  host(options?: Parameters<typeof startHost>[0]): ReturnType<typeof startHost>;
  /** A raw client socket to `port`, destroyed. */
  raw(port: number, options?: Parameters<typeof rawClient>[1]): Promise<RawClient>;
  /** A TcpConnection to the listener (or proxy) on 127.0.0.1, closed with 'test-end'. */
  client(listener: Listener | { port: number }): Promise<TestClient>;
}

/**
 * Registers an afterEach for the calling test file that runs every deferred cleanup, newest first, and returns
 * the helpers that defer their own. Call it once, at the top level of a test file.
 */
export function transportFixture(): TransportFixture {
  const cleanups: Cleanup[] = [];
  afterEach(async () => {
    for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  });
  const defer = (cleanup: Cleanup): void => void cleanups.push(cleanup);
  return {
    defer,
    async host(options = {}) {
      const h = await startHost(options);
      defer(() => h.listener.close('test-end'));
      return h;
    },
    async raw(port, options = {}) {
      const client = await rawClient(port, options);
      defer(() => void client.socket.destroy());
      return client;
    },
    async client(listener) {
      const conn = await connectTcp({ host: '127.0.0.1', port: listener.port });
      defer(() => conn.close('test-end'));
      const frames: Frame[] = [];
      const closed: string[] = [];
      conn.onFrame((f) => frames.push(f));
      conn.onClose((r) => closed.push(r));
      return { conn, frames, closed };
    },
  };
}
