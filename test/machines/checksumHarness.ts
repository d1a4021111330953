// The checksum-rounds chart (machines/checksumRounds.ts) on a simulated clock, for the chart tests: host ticks of
// 100 ms with a future stamp one step on, the session started running at speed 2, reports, and what the chart emitted
// (requests, log texts, repair requests).
import { createActor, SimulatedClock } from 'xstate';
import { checksumRoundsMachine, type ChecksumRoundsEmitted, type ChecksumRoundsEvent, type ChecksumRoundsInput, type SessionGame } from '../../machines/checksumRounds.ts';
import type { ChecksumReportPayload } from '../../protocol/messages/index.ts';

export const GAMES = [
  { id: 0, name: 'host' },
  { id: 1, name: 'bo' },
];

export function startChart(input: ChecksumRoundsInput = {}, games: readonly SessionGame[] = GAMES) {
  const clock = new SimulatedClock();
  const out: ChecksumRoundsEmitted[] = [];
  /** The host's clock when each of `out` was emitted. */
  const outAt: number[] = [];
  const actor = createActor(checksumRoundsMachine, { clock, input, systemId: 'checksumRounds' });
  actor.on('*', (e) => {
    out.push(e as ChecksumRoundsEmitted);
    outAt.push(clock.now());
  });
  actor.start();
  let at = 10_000;
  const h = {
    actor,
    clock,
    out,
    outAt,
    games,
    value: () => actor.getSnapshot().value,
    context: () => actor.getSnapshot().context,
    send: (e: ChecksumRoundsEvent) => actor.send(e),
    /** A host tick with the future stamp `at` (moving on one step a tick unless given). */
    tick(stamp?: number) {
      at = stamp ?? at + 200;
      actor.send({ type: 'tick', now: clock.now(), at, games: h.games });
    },
    /** Advances the clock by `ms` in host ticks of 100 ms. */
    run(ms: number) {
      for (let k = 0; k < ms / 100; k++) {
        clock.increment(100);
        h.tick();
      }
    },
    start() {
      h.tick();
      actor.send({ type: 'session.running', now: clock.now(), speed: 2 });
    },
    report(from: number, n: number, parts: Record<string, string | number>, extra: Partial<ChecksumReportPayload> = {}) {
      const round = [h.context().regular, h.context().paused].find((r) => r?.n === n);
      actor.send({ type: 'recv.ChecksumReport', now: clock.now(), from, payload: { n, time: round?.at ?? 0, parts, ...extra } });
    },
    /** Game `from`'s verdict of action 1:`seq` (ActionRefused 36): applied, or refused with the class engine. */
    verdict(from: number, seq: number, applied: boolean) {
      const payload = applied ? { from: 1, seq, applied: true } : { from: 1, seq, detail: 'no', class: 'engine' as const };
      actor.send({ type: 'recv.ActionRefused', now: clock.now(), from, payload });
    },
    /** Game `id` leaves: the next ticks name it no more. */
    leave(id: number) {
      h.games = h.games.filter((g) => g.id !== id);
      actor.send({ type: 'game.left', now: clock.now(), id });
    },
    requests: () => out.flatMap((e) => (e.type === 'send.ChecksumRequest' ? [e.payload] : [])),
    logs: () => out.flatMap((e) => (e.type === 'out.log' ? [e.msg] : [])),
    /** The log texts with the host's clock they were written at. */
    timedLogs: () => out.flatMap((e, i) => (e.type === 'out.log' ? [{ msg: e.msg, at: outAt[i]! }] : [])),
    repairs: () => out.flatMap((e) => (e.type === 'out.repairRequested' ? [e.reason] : [])),
  };
  return h;
}

