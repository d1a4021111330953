// What the lockstep chart refuses of a game's numbers (issue "a host that no peer can bring down"; lockstep.md
// "The game's clock line", "Stalls and outsiders"; docs/SECURITY.md): every Session and PeerClock it emits stays
// valid for the spec's validators whatever a game reports; an Action below its sender's own promise, stamped far
// out or too large once relayed is refused on every game; a clock that goes back and forth stalls; the pause
// order holds a bounded amount.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { MAX_HELD, MAX_HELD_BYTES, MAX_HELD_PER_PLAYER } from '../../machines/rules/pauseOrder.ts';
import { MAX_IN_FLIGHT, MAX_IN_FLIGHT_PER_ORIGIN } from '../../machines/rules/inFlight.ts';
import { FAR_STAMP_MS, MAX_GAME_TIME } from '../../machines/rules/screen.ts';
import { LIMITS, validatePayload, type KindName } from '../../protocol/messages/index.ts';
import { ofType, runningHost, startHost, type Emitted } from './lockstepHarness.ts';

/** Every wire message emitted is one the spec's validators accept. */
function expectValid(events: Emitted[]): number {
  let checked = 0;
  for (const e of events) {
    if (!e.type.startsWith('send.')) continue;
    const kind = e.type.slice(5) as KindName;
    const result = validatePayload(kind, (e as { payload: unknown }).payload);
    expect(result.ok, `${kind} ${JSON.stringify((e as { payload: unknown }).payload).slice(0, 200)}`).toBe(true);
    checked++;
  }
  return checked;
}

const vetoes = (events: Emitted[]) => ofType(events, 'send.BuildVeto').map((e) => e.payload);

describe('a game’s numbers at the host', () => {
  it('refuses a Clock or Hello whose times would take what the host computes past a safe integer', () => {
    const host = runningHost([0, 1], 10_000);
    for (const extra of [{ t: MAX_GAME_TIME + 1 }, { safe: 2 ** 53 - 1 }, { need: Number.MAX_SAFE_INTEGER }]) {
      host.send({ type: 'recv.Clock', from: 1, payload: { t: 10_000, speed: 1, ahead: 2, ...extra }, now: 100 });
    }
    host.send({ type: 'recv.Hello', from: 1, payload: { time: Number.MAX_SAFE_INTEGER }, now: 100 });
    const out = host.take();
    expect(ofType(out, 'send.PeerClock')).toEqual([]);
    expect(ofType(out, 'out.log').map((e) => e.msg)).toEqual(['clock refused: time out of range', 'hello refused: time out of range']);
    host.send({ type: 'cmd.pause', now: 200 });
    const pause = ofType(host.take(), 'send.Session')[0]!;
    expect(pause.payload.pauseAt).toBeLessThan(20_000);
  });

  it('keeps every Session and PeerClock valid for any clocks a game reports (fuzzed, with coverage)', () => {
    const time = fc.oneof(fc.constantFrom(0, 1, MAX_GAME_TIME, MAX_GAME_TIME + 1, 2 ** 53 - 1), fc.nat({ max: 2 ** 40 }));
    const clock = fc.record(
      { t: time, speed: fc.constantFrom(0, 1, 2, 4), ahead: fc.nat({ max: 255 }), safe: time, need: time, stop: fc.boolean() },
      { requiredKeys: ['t', 'speed', 'ahead'] },
    );
    const step = fc.oneof(
      fc.record({ kind: fc.constant('clock' as const), from: fc.constantFrom(0, 1, 2), clock, dt: fc.nat({ max: 30_000 }) }),
      fc.record({ kind: fc.constantFrom('pause' as const, 'speed' as const, 'tick' as const), dt: fc.nat({ max: 30_000 }) }),
    );
    const stats = { sessions: 0, peerClocks: 0, refusedClocks: 0, pauses: 0, stalls: 0 };
    fc.assert(
      fc.property(fc.array(step, { minLength: 1, maxLength: 60 }), (steps) => {
        const host = runningHost([0, 1, 2], 10_000);
        let now = 0;
        for (const s of steps) {
          now += s.dt;
          if (s.kind === 'clock') host.send({ type: 'recv.Clock', from: s.from, payload: s.clock, now });
          else if (s.kind === 'pause') host.send({ type: 'cmd.pause', now });
          else if (s.kind === 'speed') host.send({ type: 'cmd.speed', speed: 2, now });
          else host.send({ type: 'tick', now });
          const out = host.take();
          expectValid(out);
          expect(validatePayload('Session', host.sessionNow()).ok).toBe(true);
          stats.sessions += ofType(out, 'send.Session').length;
          stats.peerClocks += ofType(out, 'send.PeerClock').length;
          stats.refusedClocks += ofType(out, 'out.log').filter((e) => e.msg === 'clock refused: time out of range').length;
          stats.pauses += ofType(out, 'send.Session').filter((e) => e.payload.pauseAt !== undefined).length;
          stats.stalls += ofType(out, 'send.Session').filter((e) => e.payload.stalled !== undefined).length;
        }
      }),
      { seed: 42, numRuns: 150 },
    );
    expect(stats.sessions).toBeGreaterThan(100);
    expect(stats.peerClocks).toBeGreaterThan(200);
    expect(stats.refusedClocks).toBeGreaterThan(20);
    expect(stats.pauses).toBeGreaterThan(20);
    expect(stats.stalls).toBeGreaterThan(0);
  });

  it('refuses on every game an Action stamped below its sender’s own promise, but not the announced need', () => {
    const host = runningHost([0, 1], 10_000);
    host.send({ type: 'cmd.pause', now: 5 }); // pauseAt 10 800: the need is taken while the session stands still
    host.clockOf(1, 10_000, 10, { safe: 11_200, need: 10_800 });
    host.clockOf(1, 10_000, 20, { safe: 10_400, need: 10_800 }); // a clock that lowers its promise changes nothing
    host.take();
    for (const [seq, stamp] of [[1, 11_000], [2, 10_800], [3, 11_200]] as const) {
      host.send({ type: 'recv.Action', from: 1, payload: { stamp, seq, body: {} }, now: 30 });
    }
    const out = host.take();
    expect(vetoes(out)).toEqual([
      { seq: 1, owner: 1, why: 'stamped 11000, below its own promise 11200', from: 0, name: 'host', host: true },
    ]);
    expect(ofType(out, 'send.Action').map((e) => e.payload.seq)).toEqual([2, 3]);
    host.clockOf(1, 10_000, 40, { safe: 10_400 });
    expect(ofType(host.take(), 'send.PeerClock')[0]!.payload.safe).toBe(11_200);
  });

  it('refuses an Action stamped more than FAR_STAMP_MS past its sender’s time', () => {
    const host = runningHost([0, 1], 10_000);
    host.send({ type: 'recv.Action', from: 1, payload: { stamp: 10_000 + FAR_STAMP_MS, seq: 1, body: {} }, now: 1 });
    host.send({ type: 'recv.Action', from: 1, payload: { stamp: 10_200 + FAR_STAMP_MS, seq: 2, body: {} }, now: 1 });
    host.send({ type: 'recv.Action', from: 1, payload: { stamp: 2 ** 53 - 1, seq: 3, body: {} }, now: 1 });
    const out = host.take();
    expect(ofType(out, 'send.Action').map((e) => e.payload.seq)).toEqual([1]);
    expect(vetoes(out).map((v) => v.seq)).toEqual([2, 3]);
    expectValid(out);
  });

  it('marks a game whose clock goes back and forth without passing its best as stalled', () => {
    const host = runningHost([0, 1], 10_000);
    host.clockOf(1, 10_200, 0, { speed: 1, safe: 10_600 });
    host.clockOf(0, 10_600, 1_000, { speed: 0, safe: 11_000 });
    for (let now = 2_000; now <= 22_000; now += 2_000) {
      host.clockOf(1, now % 4_000 === 0 ? 10_000 : 10_200, now, { speed: 1, safe: 10_600 });
      host.send({ type: 'tick', now });
    }
    expect(host.context().games[1]!.stalled).toBeDefined();
    expect(ofType(host.take(), 'send.Session').at(-1)!.payload.stalled).toEqual([1]);
  });

  it('measures an Action as it will be relayed: one that grows past a frame is refused, not sent', () => {
    const host = runningHost([0, 1], 10_000);
    // 1e20 is 4 characters as sent and 21 as the host writes it: under the limit in, over it out.
    const count = Math.floor((LIMITS.payloadBytes - 200) / 5);
    const body = { n: Array.from({ length: count }, () => 1e20) };
    host.send({ type: 'recv.Action', from: 1, payload: { stamp: 10_400, seq: 9, body }, now: 1 });
    const out = host.take();
    expect(ofType(out, 'send.Action')).toEqual([]);
    expect(vetoes(out)).toHaveLength(1);
    expect(vetoes(out)[0]!.why).toMatch(/^larger than a frame as relayed/);
  });

  it('bounds the pause order per game, in all and in bytes; a flush stays inside a receiver’s write queue', () => {
    const host = startHost();
    for (let id = 0; id <= 9; id++) host.ready(id, 10_000);
    host.send({ type: 'cmd.start', now: 0 }).send({ type: 'cmd.pause', now: 0 }).take();
    const pauseAction = (from: number, seq: number, size = 0) =>
      host.send({ type: 'recv.Action', from, payload: { seq, pause: true, body: { pad: 'x'.repeat(size) } }, now: 1 });
    for (let seq = 1; seq <= MAX_HELD_PER_PLAYER + 1; seq++) pauseAction(1, seq);
    expect(vetoes(host.take()).map((v) => v.seq)).toEqual([MAX_HELD_PER_PLAYER + 1]);
    for (let from = 2; from <= 9; from++) for (let seq = 1; seq <= MAX_HELD_PER_PLAYER; seq++) pauseAction(from, seq);
    const refused = vetoes(host.take());
    expect(host.context().pauseOrder.held).toHaveLength(MAX_HELD);
    expect(refused.every((v) => v.why === `the pause order already holds ${MAX_HELD} actions`)).toBe(true);
    expect(refused).toHaveLength(8 * MAX_HELD_PER_PLAYER + MAX_HELD_PER_PLAYER - MAX_HELD);

    const bytesHost = startHost();
    for (let id = 0; id <= 2; id++) bytesHost.ready(id, 10_000);
    bytesHost.send({ type: 'cmd.start', now: 0 }).send({ type: 'cmd.pause', now: 0 }).take();
    for (let seq = 1; seq <= 6; seq++) {
      bytesHost.send({ type: 'recv.Action', from: 1 + (seq % 2), payload: { seq, pause: true, body: { pad: 'y'.repeat(900_000) } }, now: 1 });
    }
    expect(bytesHost.context().pauseOrder.heldBytes).toBeLessThanOrEqual(MAX_HELD_BYTES);
    expect(vetoes(bytesHost.take()).map((v) => v.seq)).toEqual([5, 6]);
  });

  it('keeps the Actions waiting in every game’s queue inside the mod’s bounds: the excess is refused on every game', () => {
    const host = runningHost([0, 1, 2, 3, 4, 5, 6, 7, 8, 9], 10_000);
    const act = (from: number, seq: number, stamp = 10_400) =>
      host.send({ type: 'recv.Action', from, payload: { stamp, seq, body: {} }, now: 1 });
    for (let seq = 1; seq <= MAX_IN_FLIGHT_PER_ORIGIN + 1; seq++) act(1, seq);
    expect(vetoes(host.take()).map((v) => v.seq)).toEqual([MAX_IN_FLIGHT_PER_ORIGIN + 1]);
    // Once every game reports a time past those stamps, they are no longer in flight.
    for (const id of [0, 1, 2, 3, 4, 5, 6, 7, 8, 9]) host.clockOf(id, 10_400, 2, { speed: 0 });
    act(1, MAX_IN_FLIGHT_PER_ORIGIN + 2, 10_800);
    expect(vetoes(host.take())).toEqual([]);
    for (let from = 2; from <= 9; from++) for (let seq = 1; seq <= MAX_IN_FLIGHT_PER_ORIGIN; seq++) act(from, seq, 10_800);
    const refused = vetoes(host.take());
    expect(refused.length).toBe(8 * MAX_IN_FLIGHT_PER_ORIGIN + 1 - MAX_IN_FLIGHT);
    expect(refused.every((v) => v.why === `${MAX_IN_FLIGHT} actions are still waiting for their stamps`)).toBe(true);
  });
});
