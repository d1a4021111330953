// The whole host under fuzz, over real sockets (spec wire-protocol.txt "Frame", "Who may send what", "Limits";
// docs/SECURITY.md): a real `feverlink3 host --game none` process (HostSession with the lockstep attached, as the
// launcher runs it), two honest players that say Hello, send Clocks, Actions and Chat like a game would, and three
// joined hostile players holding the session key that send seeded sequences of valid and invalid frames of every
// kind a player may send (sizes and depths at the limits, numbers at their extremes, clocks that go back, absurd
// Pong wall clocks, huge Clock t, Actions far ahead or below their own promise, names with control characters and
// name#id forms, unsealed junk, wrong sender ids, replays, forged tags, floods). The host's terminal types chat
// lines, /pause, /speed and /perm meanwhile.
//
// Asserted: the host process stays up (no uncaught error, no `handler failed`), every frame the host sends to any
// peer opens and decodes with the spec's validators and loses no leniently read field, both honest players see
// every relayed message in ONE identical order (and each other's chat and actions, and every valid hostile chat),
// no relayed message claims an honest sender it did not come from, and the host's RSS stays bounded. Coverage has
// floors: every player-sendable kind generated valid and invalid, every frame mode, extremes and limits hit.
//
// The sequences are deterministic per seed (SEEDS; HOST_FUZZ_SEEDS=1,2,3 and HOST_FUZZ_STEPS=N override). The
// host's reactions depend on real timing, so a finding is reported with its seed, life, kind and the host's stack,
// and each failure class found has a focused reproduction in hostFuzzRepro.test.ts.
import { afterEach, describe, expect, it, vi } from 'vitest';
import { PLAYER_KINDS } from '../support/hostFuzzFields.ts';
import { endPool } from '../support/hostFuzzPool.ts';
import { SEEDS, STEPS, RSS_BOUND_MB, HOSTILES } from '../support/hostFuzzLives.ts';
import { fuzz, report } from '../support/hostFuzzRun.ts';

vi.setConfig({ testTimeout: 30_000 });
afterEach(endPool);

describe('the host under fuzz (a real `feverlink3 host` process, real sockets)', () => {
  const title = 'seed %i: the host stays up, every frame decodes, one relay order, bounded memory';
  it.each(SEEDS)(title, { timeout: 120_000 }, async (seed) => {
    const r = await fuzz(seed);
    console.log(report(seed, r));
    const { cov } = r;
    // Coverage floors: what was generated is a function of the seed; what was sent depends little on timing.
    for (const kind of PLAYER_KINDS) {
      expect(cov.get(`gen:${kind}`), `generated ${kind}`).toBeGreaterThanOrEqual(kind === 'Leave' ? 1 : 5);
      if (kind !== 'Leave') {
        expect(cov.get(`gen-valid:${kind}`), `valid ${kind}`).toBeGreaterThanOrEqual(1);
        expect(cov.get(`gen-invalid:${kind}`), `invalid ${kind}`).toBeGreaterThanOrEqual(1);
        expect(cov.get(`sent:${kind}`), `${kind} on the wire`).toBeGreaterThanOrEqual(3);
      }
    }
    for (const mode of ['sealed', 'replay', 'wrongSender', 'forgedTag', 'unsealed', 'forbiddenKind', 'unknownKind']) {
      expect(cov.get(`mode:${mode}`), `frame mode ${mode}`).toBeGreaterThanOrEqual(3);
    }
    expect(cov.sum('extreme:'), 'numeric fields at an extreme').toBeGreaterThanOrEqual(100);
    expect(cov.sum('extreme-value:'), 'extreme values').toBeGreaterThanOrEqual(100);
    expect(cov.sum('limit:'), 'sizes at a limit').toBeGreaterThanOrEqual(40);
    expect(cov.get('clock:backwards'), 'clocks that go back').toBeGreaterThanOrEqual(3);
    expect(cov.get('pong:absurd-w'), 'absurd Pong wall clocks').toBeGreaterThanOrEqual(3);
    const offPromise = cov.get('action:below-own-promise') + cov.get('action:far-future');
    expect(offPromise, 'Actions off their promise').toBeGreaterThanOrEqual(5);
    expect(cov.sum('edge:Chat.text'), 'odd chat texts').toBeGreaterThanOrEqual(5);
    expect(cov.sum('sent:'), 'steps put on the wire').toBeGreaterThanOrEqual(HOSTILES * STEPS * 0.5);
    // The findings, then memory.
    expect(r.findings.map((f) => `${f.what}: ${f.detail.split('\n')[0]}`)).toEqual([]);
    expect(r.rssMaxKb / 1024, 'host RSS (MB)').toBeLessThan(RSS_BOUND_MB);
  });
});
