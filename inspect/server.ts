// The inspector's server: the page (inspect/page/, inspect/pageBundle.ts) over HTTP on 127.0.0.1 only, the charts
// the page draws (`/charts.json`: inspect/machineCatalog.ts plus those seen running), what it shows (`/session.json`:
// live or a recorded trace, a title) and the trace lines over a WebSocket (`/live`): first the backlog in one message,
// then each new line as it comes. Requests must name this server as their Host and a socket's Origin must be this
// page, so another web page in the same browser cannot read a session (DNS rebinding, cross-site sockets).
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { WebSocketServer, type WebSocket } from 'ws';
import type { InspectorSource } from './liveFeed.ts';
import { machineCatalog } from './machineCatalog.ts';
import { pageFile, pageScript } from './pageBundle.ts';

export interface InspectorServer {
  readonly url: string;
  readonly port: number;
  close(): Promise<void>;
}

/** What the socket carries, one JSON object per message. */
export type SocketMessage = { kind: 'lines'; lines: string[] } | { kind: 'charts'; charts: Record<string, unknown> };

/** A page slower than this many queued bytes is dropped (it reconnects and gets the backlog again). */
const MAX_BUFFERED = 8 * 1024 * 1024;

export async function startInspectorServer(source: InspectorSource, port = 0): Promise<InspectorServer> {
  const catalog = machineCatalog();
  let bound = 0;
  const allowedHosts = () => new Set([`127.0.0.1:${bound}`, `localhost:${bound}`]);
  const charts = () => ({ ...source.charts(), ...catalog });

  const http = createServer((req, res) => {
    handle(req, res).catch((error: unknown) => send(res, 500, 'text/plain; charset=utf-8', `inspector: ${String(error)}\n`));
  });
  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    if (!allowedHosts().has(req.headers.host ?? '')) return send(res, 403, 'text/plain; charset=utf-8', 'wrong host\n');
    if (req.method !== 'GET') return send(res, 405, 'text/plain; charset=utf-8', 'GET only\n');
    const path = new URL(req.url ?? '/', 'http://x').pathname;
    if (path === '/app.js') return send(res, 200, 'text/javascript; charset=utf-8', await pageScript());
    if (path === '/charts.json') return send(res, 200, 'application/json', JSON.stringify(charts()));
    if (path === '/session.json') return send(res, 200, 'application/json', JSON.stringify({ mode: source.mode, title: source.title }));
    const file = pageFile(path);
    if (file) {
      const { body, type } = await file;
      return send(res, 200, type, body);
    }
    send(res, 404, 'text/plain; charset=utf-8', 'not found\n');
  }

  const sockets = new WebSocketServer({
    server: http,
    path: '/live',
    maxPayload: 4096,
    verifyClient: ({ origin, req }: { origin: string | undefined; req: IncomingMessage }) => allowedHosts().has(req.headers.host ?? '') && (origin === undefined || allowedOrigin(origin, bound)),
  });
  sockets.on('connection', (socket: WebSocket) => {
    let knownCharts = Object.keys(source.charts()).length;
    const write = (message: SocketMessage) => {
      if (socket.readyState !== socket.OPEN) return;
      if (socket.bufferedAmount > MAX_BUFFERED) return socket.terminate();
      socket.send(JSON.stringify(message));
    };
    write({ kind: 'lines', lines: [...source.backlog()] });
    // New lines go out together, once per turn of the event loop (a burst of a step is one message).
    let batch: string[] = [];
    let queued = false;
    const unsubscribe = source.subscribe((line) => {
      batch.push(line);
      if (queued) return;
      queued = true;
      setImmediate(() => {
        queued = false;
        const lines = batch;
        batch = [];
        const all = source.charts();
        if (Object.keys(all).length !== knownCharts) {
          knownCharts = Object.keys(all).length;
          write({ kind: 'charts', charts: all });
        }
        write({ kind: 'lines', lines });
      });
    });
    socket.on('close', unsubscribe);
    socket.on('error', unsubscribe);
  });

  await new Promise<void>((resolve, reject) => {
    http.once('error', reject);
    http.listen(port, '127.0.0.1', () => {
      http.off('error', reject);
      resolve();
    });
  });
  bound = (http.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${bound}/`,
    port: bound,
    close: () =>
      new Promise<void>((resolve) => {
        for (const client of sockets.clients) client.terminate();
        sockets.close();
        http.closeAllConnections();
        http.close(() => resolve());
      }),
  };
}

function allowedOrigin(origin: string, port: number): boolean {
  return origin === `http://127.0.0.1:${port}` || origin === `http://localhost:${port}`;
}

function send(res: ServerResponse, status: number, type: string, body: string): void {
  if (res.headersSent) return void res.end();
  res.writeHead(status, { 'content-type': type, 'cache-control': 'no-store', 'x-content-type-options': 'nosniff' });
  res.end(body);
}
