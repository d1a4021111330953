// The inspector's server (inspect/server.ts) over real sockets on 127.0.0.1: the page and its bundled script, the
// charts, a recorded trace's lines over the WebSocket; a request naming another Host and a socket from another
// Origin are refused; a live feed's new lines reach an open socket.
import { request } from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import { WebSocket } from 'ws';
import { createLiveFeed, traceSource } from '../../inspect/liveFeed.ts';
import { startInspectorServer, type InspectorServer } from '../../inspect/server.ts';

let server: InspectorServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

function get(port: number, path: string, host = `127.0.0.1:${port}`): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, path, headers: { host } }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (c: string) => (body += c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
    });
    req.on('error', reject);
    req.end();
  });
}

function firstMessage(url: string, origin: string): Promise<{ kind: string; lines?: string[] }> {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(url, { origin });
    ws.once('message', (data) => {
      resolve(JSON.parse(String(data)) as { kind: string; lines?: string[] });
      ws.close();
    });
    ws.once('error', reject);
    ws.once('unexpected-response', (_req, res) => reject(new Error(`refused ${res.statusCode}`)));
  });
}

describe('the inspector server', () => {
  it('serves the page, its script, the charts and the trace; refuses another Host or Origin', async () => {
    const lines = ['{"t":0,"type":"@trace.file","format":"feverlink3.trace","version":1,"seq":0}'];
    server = await startInspectorServer(traceSource(lines, 'x'));
    const { port } = server;
    expect((await get(port, '/')).body).toContain('<script type="module" src="/app.js">');
    const script = await get(port, '/app.js');
    expect(script.status).toBe(200);
    expect(script.body).toContain('WebSocket');
    expect(JSON.parse((await get(port, '/charts.json')).body)).toHaveProperty('playerSlot');
    expect(JSON.parse((await get(port, '/session.json')).body)).toEqual({ mode: 'trace', title: 'x' });
    expect((await get(port, '/', 'evil.example:80')).status).toBe(403);
    expect(await firstMessage(`ws://127.0.0.1:${port}/live`, `http://127.0.0.1:${port}`)).toEqual({ kind: 'lines', lines });
    await expect(firstMessage(`ws://127.0.0.1:${port}/live`, 'http://evil.example')).rejects.toThrow(/refused 401/);
  });

  it('streams a live feed: the backlog, then new lines', async () => {
    let now = 0;
    const feed = createLiveFeed({ now: () => now, title: 'live' });
    server = await startInspectorServer(feed);
    const ws = new WebSocket(`ws://127.0.0.1:${server.port}/live`);
    const messages: { kind: string; lines?: string[] }[] = [];
    ws.on('message', (d) => messages.push(JSON.parse(String(d)) as { kind: string; lines?: string[] }));
    await new Promise((r) => ws.once('message', r));
    expect(messages[0]).toEqual({ kind: 'lines', lines: [] });
    const { createActor, setup } = await import('xstate');
    now = 5;
    const actor = createActor(setup({}).createMachine({ id: 'tiny', initial: 'A', states: { A: {} } }), { inspect: feed.inspect, systemId: 'tiny' });
    actor.start();
    await expect.poll(() => messages.flatMap((m) => m.lines ?? []).some((l) => l.includes('"@xstate.actor"') && l.includes('"tiny"'))).toBe(true);
    expect(feed.charts()).toHaveProperty('tiny');
    actor.stop();
    ws.close();
  });
});
