// The session's root actor (actors/sessionRouter.ts) and its adapter actors (actors/connectionActor.ts, the file
// link's in adapters/launcher/gameBridge.ts): one `conn:<id>` per accepted connection, stopped when it closes; its
// frames, violation and close reach the session as the root's events, in the port's order and inside the port's own
// callback; close and markJoined go to the connection's actor, writes to the port; a throwing handler or a failing
// adapter ends only what it concerns. Over a fake port, over real TCP (a close inside the handler stops the frames of
// the same chunk), and with a HostSession on the memory network (a fault ends only that player's connection).
import { connect as tcpConnect } from 'node:net';
import { createActor, fromCallback, SimulatedClock, type InspectionEvent } from 'xstate';
import { afterEach, describe, expect, it } from 'vitest';
import type { Connection, GameLinkReport, ViolationReason } from '../../actors/ports.ts';
import {
  createSessionRouter,
  LINK_ID,
  sessionRouterLogic,
  sessionRouterMachine,
  type SessionRouterDeps,
} from '../../actors/sessionRouter.ts';
import { realClock } from '../../adapters/clock.ts';
import { listenTcp } from '../../adapters/transport/tcp.ts';
import { concatBytes } from '../../protocol/bytes.ts';
import type { Frame } from '../../protocol/frame.ts';
import { memoryHarness } from '../support/memorySession.ts';
import { goodPair, joinedPlayer, type SessionHarness } from '../support/sessionHarness.ts';
import { numberedFrame } from '../adapters/transport/support.ts';

type Entry = { msg: string; [k: string]: unknown };

/** A Connection port driven by the test; its close calls the close handlers at once, as the transports do. */
class FakePort implements Connection {
  readonly remoteAddress = '10.0.0.9';
  readonly addressKey = '10.0.0.9';
  closeReason: string | undefined;
  readonly calls: string[] = [];
  failWrites = false;
  private frameHandler?: (frame: Frame) => void;
  private violationHandler?: (reason: ViolationReason) => void;
  private closeHandlers: ((reason: string) => void)[] = [];

  readonly id: number;

  constructor(id: number) {
    this.id = id;
  }

  onFrame(handler: (frame: Frame) => void): void {
    this.frameHandler = handler;
  }
  onViolation(handler: (reason: ViolationReason) => void): void {
    this.violationHandler = handler;
  }
  onClose(handler: (reason: string) => void): void {
    if (this.closeReason !== undefined) handler(this.closeReason);
    else this.closeHandlers.push(handler);
  }
  write(bytes: Uint8Array): void {
    if (this.failWrites) throw new Error('the port broke');
    this.calls.push(`write ${bytes.length}`);
  }
  markJoined(): void {
    this.calls.push('joined');
  }
  close(reason: string, finalBytes?: Uint8Array): void {
    this.calls.push(`close ${reason}${finalBytes ? ` +${finalBytes.length}` : ''}`);
    if (this.closeReason !== undefined) return;
    this.closeReason = reason;
    for (const handler of this.closeHandlers.splice(0)) handler(reason);
  }
  /** The transport decoded a frame: returns once the owner handled it. */
  frame(n: number): void {
    this.frameHandler?.({ header: { version: 1, kind: 30, sender: 1, counter: BigInt(n) }, body: new Uint8Array([n]) } as Frame);
  }
  violate(reason: ViolationReason): void {
    this.violationHandler?.(reason);
  }
}

function router(deps: Partial<SessionRouterDeps> = {}) {
  const logs: Entry[] = [];
  const events: InspectionEvent[] = [];
  const heard: string[] = [];
  const r = createSessionRouter('host', {
    clock: new SimulatedClock(),
    log: (e) => logs.push(e),
    inspect: (e) => events.push(e),
    frame: (e) => heard.push(`${e.conn} frame ${e.frame.body[0]}`),
    violation: (e) => heard.push(`${e.conn} violation ${e.reason}`),
    closed: (e) => heard.push(`${e.conn} closed ${e.reason}`),
    ...deps,
  });
  const children = () => Object.keys(r.actor.getSnapshot().children).sort();
  /** The events an actor got, by systemId, in order. */
  const eventsOf = (systemId: string) =>
    events
      .filter((e) => e.type === '@xstate.event' && (e.actorRef as { systemId?: string }).systemId === systemId)
      .map((e) => (e as { event: { type: string } }).event.type);
  return { r, logs, events, heard, children, eventsOf };
}

describe('the session router over a fake port', () => {
  it('spawns one conn:<id> per accepted connection and stops it when the connection closes', () => {
    const t = router();
    const a = new FakePort(7);
    const b = new FakePort(8);
    t.r.accept(a);
    t.r.accept(b);
    expect(t.r.actor.getSnapshot().status).toBe('active');
    expect(t.r.actor.system.get('host')).toBe(t.r.actor);
    expect(t.children()).toEqual(['conn:7', 'conn:8']);
    expect(t.r.actor.system.get('conn:7')).toBe(t.r.connectionActor(7));
    expect(t.r.connectionActor(7)?.id).toBe('conn:7');
    a.close('peer-closed');
    expect(t.children()).toEqual(['conn:8']);
    expect(t.r.connectionActor(7)).toBeUndefined();
    expect(t.r.actor.system.get('conn:7')).toBeUndefined();
    expect(t.heard).toEqual(['7 closed peer-closed']);
    // A connection that closed before it was accepted reports it at once, and its actor ends with it.
    const c = new FakePort(9);
    c.close('reset');
    t.r.accept(c);
    expect(t.heard.at(-1)).toBe('9 closed reset');
    expect(t.children()).toEqual(['conn:8']);
  });

  it('routes each connection’s frames, violation and close in order, each handled inside the port’s callback', () => {
    const t = router();
    const a = new FakePort(1);
    const b = new FakePort(2);
    t.r.accept(a);
    t.r.accept(b);
    a.frame(1);
    expect(t.heard).toEqual(['1 frame 1']); // handled before the port's callback returned
    b.frame(9);
    a.frame(2);
    a.violate('flood');
    a.close('flood');
    a.frame(3); // a stopped actor reports nothing (a real port calls no handler after its close)
    expect(t.heard).toEqual(['1 frame 1', '2 frame 9', '1 frame 2', '1 violation flood', '1 closed flood']);
    expect(t.eventsOf('host')).toEqual(
      expect.arrayContaining(['conn.accepted', 'conn.frame', 'conn.violation', 'conn.closed']),
    );
    expect(t.eventsOf('host').filter((type) => type.startsWith('conn.'))).toEqual([
      'conn.accepted',
      'conn.accepted',
      'conn.frame',
      'conn.frame',
      'conn.frame',
      'conn.violation',
      'conn.closed',
    ]);
  });

  it('gives close and markJoined to the connection’s actor and writes to the port; the port itself once the actor ended', () => {
    const t = router();
    const port = new FakePort(3);
    const handle = t.r.handle(port);
    t.r.accept(port);
    handle.write(new Uint8Array(5));
    handle.markJoined();
    expect(port.calls).toEqual(['write 5', 'joined']);
    t.r.connectionActor(3)!.send({ type: 'conn.write', bytes: new Uint8Array(2) });
    handle.close('kicked', new Uint8Array(4));
    // Synchronous, as a call on the port: the reason is set when close returns.
    expect(handle.closeReason).toBe('kicked');
    expect(port.calls).toEqual(['write 5', 'joined', 'write 2', 'close kicked +4']);
    expect(t.eventsOf('conn:3')).toEqual(['xstate.init', 'conn.joined', 'conn.write', 'conn.close']);
    expect(t.children()).toEqual([]);
    handle.close('again');
    expect(port.calls.at(-1)).toBe('close again'); // the port logs a repeated close; no actor is involved
  });

  it('a throwing handler is logged and ends nothing else; a failing connection actor is reported for that connection only', () => {
    const failed: [number, string][] = [];
    const heard: string[] = [];
    const t = router({
      frame: (e) => {
        if (e.conn === 1) throw new Error('a bug of ours');
        heard.push(`${e.conn} frame ${e.frame.body[0]}`);
      },
      connectionFailed: (conn, err) => failed.push([conn, String(err)]),
    });
    const a = new FakePort(1);
    const b = new FakePort(2);
    t.r.accept(a);
    t.r.accept(b);
    a.frame(1);
    b.frame(2);
    expect(t.logs).toEqual([expect.objectContaining({ msg: 'internal error', while: 'host conn.frame', stack: expect.stringContaining('a bug of ours') })]);
    expect(heard).toEqual(['2 frame 2']);
    // The adapter itself fails (a command it runs throws): its actor ends, the router reports it and goes on.
    a.failWrites = true;
    t.r.connectionActor(1)!.send({ type: 'conn.write', bytes: new Uint8Array(1) });
    expect(failed).toEqual([[1, 'Error: the port broke']]);
    expect(t.r.actor.getSnapshot().status).toBe('active');
    expect(t.children()).toEqual(['conn:2']);
    b.frame(3);
    expect(heard).toEqual(['2 frame 2', '2 frame 3']);
  });

  it('runs a file link adapter as `link`: its reports reach the handlers in order; detach stops it, a second attach replaces it', () => {
    const t = router();
    let report: ((e: GameLinkReport) => void) | undefined;
    let stops = 0;
    const logic = fromCallback<{ type: string }, { name: string }, GameLinkReport>(({ sendBack }) => {
      report = sendBack;
      return () => stops++;
    });
    const got: string[] = [];
    const handlers = {
      line: (line: { kind: string }) => got.push(`line ${line.kind}`),
      notice: (n: { type: string }) => got.push(`notice ${n.type}`),
      problem: (p: unknown) => got.push(`problem ${String((p as { reason: string }).reason)}`),
    };
    const detach = t.r.attachLink(logic, { name: 'first' }, handlers);
    expect(t.r.actor.system.get(LINK_ID)).toBeDefined();
    expect(t.children()).toEqual(['link']);
    report!({ type: 'link.line', line: { kind: 'Hello', payload: {} } });
    report!({ type: 'link.problem', problem: { file: 'from_game.log', offset: 0, reason: 'bad JSON' } });
    report!({ type: 'link.notice', notice: { type: 'link.stalled' } });
    report!({ type: 'link.line', line: { kind: 'Clock', payload: {} } });
    expect(got).toEqual(['line Hello', 'problem bad JSON', 'notice link.stalled', 'line Clock']);
    // A throwing handler is logged; the next report still arrives.
    const throwing = t.r.attachLink(logic, { name: 'second' }, { ...handlers, line: () => { throw new Error('bad line handling'); } });
    expect(stops).toBe(1);
    detach(); // the first one's detach no longer touches the second
    expect(t.children()).toEqual(['link']);
    report!({ type: 'link.line', line: { kind: 'Action', payload: {} } });
    report!({ type: 'link.notice', notice: { type: 'link.recovered' } });
    expect(t.logs.map((l) => l.while)).toEqual(['host link.line']);
    expect(got.at(-1)).toBe('notice link.recovered');
    throwing();
    expect(stops).toBe(2);
    expect(t.children()).toEqual([]);
  });
});

describe('the frame shortcut (sessionRouterLogic)', () => {
  it('is the chart’s own conn.frame transition: targetless, unguarded, one `forward`', () => {
    const on = (sessionRouterMachine.root.states as Record<string, { on: Record<string, unknown[]> }>).Routing!.on;
    const transitions = on['conn.frame'] as { target?: unknown; guard?: unknown; actions: unknown[] }[];
    expect(transitions).toHaveLength(1);
    expect(transitions[0]).toMatchObject({ target: undefined, guard: undefined, actions: ['forward'] });
    expect(Object.keys(sessionRouterMachine.root.states)).toEqual(['Routing']);
  });

  it('gives the same emitted events, in the same order, and the same snapshots as the chart', () => {
    const run = (logic: typeof sessionRouterMachine) => {
      const got: unknown[] = [];
      const actor = createActor(logic, { clock: new SimulatedClock() });
      for (const type of ['conn.frame', 'conn.violation', 'conn.closed', 'adapter.failed'] as const) {
        actor.on(type, (e) => got.push({ ...e, snapshot: actor.getSnapshot().value, children: Object.keys(actor.getSnapshot().children) }));
      }
      actor.start();
      const a = new FakePort(1);
      const b = new FakePort(2);
      actor.send({ type: 'conn.accepted', conn: a });
      a.frame(1);
      actor.send({ type: 'conn.accepted', conn: b });
      b.frame(2);
      a.frame(3);
      a.violate('malformed');
      a.close('malformed');
      b.frame(4);
      actor.stop();
      b.frame(5); // nothing after the stop
      return got;
    };
    const chart = run(sessionRouterMachine);
    expect(chart).toHaveLength(6); // four frames, the violation, the close
    expect(run(sessionRouterLogic)).toEqual(chart);
  });
});

describe('over real TCP', () => {
  const cleanups: (() => Promise<unknown> | void)[] = [];
  afterEach(async () => {
    for (const clean of cleanups.splice(0)) await clean();
  });

  it('a frame is handled inside the transport’s data callback: a close there stops the frames of the same chunk', async () => {
    const logs: Entry[] = [];
    const listener = await listenTcp({ host: '127.0.0.1', port: 0, clock: realClock, log: (e) => logs.push(e) });
    cleanups.push(() => listener.close('test over'));
    const seen: number[] = [];
    const closed: string[] = [];
    const handles = new Map<number, ReturnType<ReturnType<typeof createSessionRouter>['handle']>>();
    const r = createSessionRouter('host', {
      clock: realClock,
      log: (e) => logs.push(e),
      frame: (e) => {
        seen.push(new DataView(e.frame.body.buffer, e.frame.body.byteOffset).getUint32(0));
        handles.get(e.conn)!.close('enough');
      },
      closed: (e) => closed.push(e.reason),
    });
    listener.onConnection((conn) => {
      handles.set(conn.id, r.handle(conn));
      r.accept(conn);
    });
    const socket = tcpConnect(listener.port, '127.0.0.1');
    cleanups.push(() => void socket.destroy());
    socket.on('error', () => {});
    await new Promise<void>((resolve) => socket.once('connect', () => resolve()));
    // Three small frames in one write: one TCP chunk, decoded together by the transport.
    socket.write(concatBytes(numberedFrame(1), numberedFrame(2), numberedFrame(3)));
    const deadline = Date.now() + 5000;
    while (closed.length === 0 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 5));
    expect(closed).toEqual(['enough']);
    expect(seen).toEqual([1]);
    expect(Object.keys(r.actor.getSnapshot().children)).toEqual([]);
  });
});

describe('a HostSession over the memory network', () => {
  let t: SessionHarness | undefined;
  afterEach(async () => {
    await t?.closeAll(); // and checks that no handler threw into the transport
    t = undefined;
  });

  it('a fault while handling one player’s frame ends only that connection (internal-error); its conn actor is gone, the others run', async () => {
    t = memoryHarness();
    const h = await t.startHost();
    const good = await goodPair(t, h);
    h.host.on((n) => {
      if (n.type === 'chat' && n.text === 'boom') throw new Error('a bug of ours');
    });
    const victim = await joinedPlayer(t, h, 'carol');
    const children = () => Object.keys(h.host.router.actor.getSnapshot().children).sort();
    expect(children()).toHaveLength(3);
    victim.player.chat('boom');
    await t.waitFor(() => victim.ended(), 5000, 'carol to be ended');
    expect(victim.ended()).toMatchObject({ reason: 'internal-error' });
    const faults = h.logs.filter((l) => l.msg === 'internal error');
    expect(faults).toEqual([expect.objectContaining({ player: 3, while: 'frame', stack: expect.stringContaining('a bug of ours') })]);
    await t.waitFor(() => children().length === 2, 5000, 'carol’s conn actor to stop');
    expect(children()).toEqual(h.connections.filter((c) => c.closeReason === undefined).map((c) => `conn:${c.id}`).sort());
    await good.relays();
  });
});
