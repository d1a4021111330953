// The whole-host fuzz's run: one seed, host lives until every hostile player has run its steps, and its report
// (test/hostile/hostFuzz.test.ts).
import { type Payloads } from '../../protocol/messages/index.ts';
import { seededRandom } from './random.ts';
import { type DecodeFailure, until, sleep } from './hostFuzzPeer.ts';
import { type Rng, chance, Coverage, type HostileStep } from './hostFuzzFields.ts';
import { hostileStep, hostilePongW } from './hostFuzzFrames.ts';
import { peers, host, peer } from './hostFuzzPool.ts';
import { STEPS, STEP_MS, HOSTILES, MIN_LIFE_MS, type Finding, short, Bucket, chatsOf, actionsOf, sawChat, sawStart, yes, type Honest, honestTick, type Hostile, hostileJoin, sendStep, type LifeResult, hostUiAction, compareOrder } from './hostFuzzLives.ts';

export interface FuzzResult {
  findings: Finding[];
  cov: Coverage;
  rssMaxKb: number;
  lives: number;
  ms: number;
}

export async function fuzz(seed: number): Promise<FuzzResult> {
  const findings: Finding[] = [];
  const cov = new Coverage();
  const began = Date.now();
  const hostiles: Hostile[] = Array.from({ length: HOSTILES }, (_, index) => ({
    index,
    rng: seededRandom(seed * 1000 + index + 1),
    state: { t: 0, safe: 0, seq: 0, lastPing: undefined, others: [], you: 0 },
    peer: undefined,
    bucket: new Bucket(),
    ending: false,
    chats: [],
    expectedChats: [],
    joins: 0,
    joinFailures: [],
    recent: [],
    pongW: hostilePongW(seededRandom(seed * 1000 + 500 + index), cov),
  }));
  const uiRng = seededRandom(seed * 1000 + 999);
  // Pre-generated: the sequence (kinds, modes, sizes, extremes) is a function of the seed alone.
  // Hostile 0 stays in the session's world with well-formed extreme values; the others are chaos.
  const plans: HostileStep[][] = hostiles.map((x) =>
    Array.from({ length: STEPS }, () => hostileStep(x.rng, x.state, cov, x.index === 0 ? 'extreme' : 'chaos')),
  );
  const next = hostiles.map(() => 0);
  let rssMaxKb = 0;
  let life = 0;
  while (next.some((i) => i < STEPS) && life < 4) {
    life += 1;
    const result = await runLife(seed, life, hostiles, plans, next, uiRng, cov, findings);
    rssMaxKb = Math.max(rssMaxKb, result.rssMaxKb);
    if (!result.died) break;
  }
  return { findings, cov, rssMaxKb, lives: life, ms: Date.now() - began };
}

export async function runLife(
  seed: number,
  life: number,
  hostiles: Hostile[],
  plans: HostileStep[][],
  next: number[],
  uiRng: Rng,
  cov: Coverage,
  findings: Finding[],
): Promise<LifeResult> {
  const h = await host();
  const bornAt = Date.now();
  let rssMaxKb = h.rssKb() ?? 0;
  const rssTimer = setInterval(() => (rssMaxKb = Math.max(rssMaxKb, h.rssKb() ?? 0)), 100);
  const find = (what: string, detail: string) => findings.push({ seed, life, what, detail });
  try {
    // Two honest players, and hostile 0, say Hello at t = 0 before the start, so all three pace the session.
    const honest: Honest[] = [];
    for (const tag of ['alice', 'bob']) {
      const p = await peer(h, tag, true);
      const end = await p.join(tag, { waitMs: 5000 });
      if (end !== 'welcome') {
        find('an honest player could not join', `${tag}: ${end} ${short(p.failures)}`);
        return { died: !h.alive(), rssMaxKb };
      }
      p.send('Hello', { time: 0 });
      honest.push({ peer: p, tag, t: 0, n: 0, chats: [], actions: [] });
    }
    for (const x of honest) honestTick(x, false);
    const [a, b] = honest as [Honest, Honest];
    // Every hostile player joins before the start too: its game is in the session's world (not an outsider), so
    // its Actions are relayed and its clock paces the session and counts for pauseAt and stamps.
    for (const x of hostiles) {
      x.state.t = 0;
      x.state.safe = 0;
      if (await hostileJoin(h, x, cov, findings, seed, life)) {
        x.peer!.send('Hello', { time: 0 });
        x.peer!.send('Clock', { t: 0, speed: 0, ahead: 2, safe: 0 });
      }
    }
    await sleep(50);
    h.type('/start');
    const started = await until(() => yes(sawStart(a.peer)), 3000);
    cov.hit(started ? 'session:started' : 'session:not-started');
    const others = () => [a.peer.you!, b.peer.you!, ...hostiles.flatMap((x) => (x.peer?.you ? [x.peer.you] : []))];

    let running = true;
    const honestLoop = (async () => {
      while (running && h.alive()) {
        for (const x of honest) honestTick(x, true);
        await sleep(40);
      }
    })();
    const typed: string[] = [];
    const uiLoop = (async () => {
      while (running && h.alive()) {
        hostUiAction(uiRng, h, cov, typed);
        await sleep(250);
      }
    })();
    const hostileLoops = hostiles.map(async (x, i) => {
      let failedJoins = 0;
      while (next[i]! < STEPS && h.alive()) {
        if (!x.peer || x.peer.closed || x.ending) {
          if (x.peer && !x.peer.closed) x.peer.destroy();
          x.peer = undefined;
          if (failedJoins >= 2) return; // the host lets nobody in: the finding is recorded
          if (!(await hostileJoin(h, x, cov, findings, seed, life))) {
            failedJoins += 1;
            await sleep(200);
            continue;
          }
          if (chance(x.rng, 0.5)) x.peer!.send('Hello', { time: x.state.t });
        }
        x.state.others = others().filter((id) => id !== x.peer!.you);
        x.state.lastPing = x.peer!.lastPing;
        const step = plans[i]![next[i]!]!;
        next[i]! += 1;
        await sendStep(x, step, cov);
        await sleep(STEP_MS);
        // A connection the host kept to the end keeps its chat expectations.
      }
    });
    await Promise.all(hostileLoops);
    // At least MIN_LIFE_MS: the host pings every 2 s, and a Pong's effect shows in the Ping after it.
    while (Date.now() - bornAt < MIN_LIFE_MS && h.alive()) await sleep(50);
    running = false;
    await Promise.all([honestLoop, uiLoop]);

    if (!h.alive()) {
      const code = await h.launcher.exited;
      find(
        'the host process died',
        `exit ${code}; last hostile steps: ${hostiles.map((x) => `[${x.recent.slice(-4).join(' ; ')}]`).join(' ')}\n` +
          `stderr:\n${h.launcher.stderr().slice(0, 3000)}`,
      );
    }
    for (const x of hostiles) {
      if (x.peer && !x.peer.closed && !x.peer.kicked && !x.ending) {
        for (const text of x.chats) x.expectedChats.push({ from: x.peer.you!, text });
      }
    }

    // Quiesce: a last chat from every hostile connection still in good standing (the host reads a connection in
    // order, so once both honest players have it, everything that connection sent before has been handled; a
    // large frame may still sit in a socket buffer long after the hostile loop wrote it), then markers from both
    // honest players and the host's terminal, then every check.
    const lastWords: { from: number; text: string }[] = [];
    for (const x of hostiles) {
      if (!x.peer || x.peer.closed || x.peer.kicked || x.ending) continue;
      const text = `hostile${x.index}-end-${life}`;
      if (x.peer.send('Chat', { text })) lastWords.push({ from: x.peer.you!, text });
    }
    if (h.alive()) {
      const both = (w: { from: number; text: string }) =>
        sawChat(a.peer, w.text, w.from) && sawChat(b.peer, w.text, w.from);
      const drained = await until(() => yes(lastWords.every(both)), 10_000);
      if (!drained && h.alive()) {
        const missing = lastWords.filter((w) => !both(w)).map((w) => w.from);
        const what = 'a hostile connection in good standing stopped being relayed';
        find(what, `no last chat from ${missing.join(', ')} in 10 s`);
      }
    }
    let hostDone: string | undefined;
    if (h.alive()) {
      a.peer.send('Chat', { text: `${a.tag}-end` });
      b.peer.send('Chat', { text: `${b.tag}-end` });
      hostDone = `host-end-${seed}-${life}`;
      h.type(hostDone);
      const done = hostDone;
      const markers = () => sawChat(a.peer, 'bob-end') && sawChat(b.peer, 'alice-end');
      const sawAll = await until(() => yes(sawChat(a.peer, done) && sawChat(b.peer, done) && markers()), 8000);
      if (!sawAll) {
        const closed = `closed: alice ${a.peer.closed}, bob ${b.peer.closed}`;
        find('the end markers did not reach both honest players', closed);
      }
    }

    // 1. Every frame the host sent to anyone decodes (grouped by kind and reason).
    const failures: DecodeFailure[] = [a.peer, b.peer, ...peers].flatMap((p) => p.failures);
    const groups = new Map<string, DecodeFailure[]>();
    for (const f of new Set(failures)) {
      const key = `${f.kindName ?? f.kind}: ${f.why.replace(/\d+/g, 'N').slice(0, 80)}`;
      groups.set(key, [...(groups.get(key) ?? []), f]);
    }
    for (const [key, list] of groups) {
      const who = [...new Set(list.map((f) => f.peer))].join(', ');
      const example = short(list[0]!.excerpt, 300);
      find('a frame from the host did not decode', `${key} ×${list.length} (peers ${who}); e.g. ${example}`);
    }

    // 2. One order for both honest players.
    const order = compareOrder(a, b, hostDone);
    if (order) find('the honest players saw different orders', order);

    // 3. Each honest player saw the other's chat and actions, in order, from the right id; and every valid
    //    hostile chat of a connection that stayed open; and nothing claiming an honest sender it did not send.
    for (const [me, other] of [[a, b], [b, a]] as const) {
      if (!hostDone) break;
      const got = chatsOf(me.peer).filter((c) => c.from === other.peer.you).map((c) => c.text);
      const want = [...other.chats, `${other.tag}-end`];
      if (JSON.stringify(got) !== JSON.stringify(want)) {
        const missing = short(want.find((t) => !got.includes(t)));
        const counts = `${me.tag} got ${got.length} of ${want.length} of ${other.tag}'s`;
        find('an honest chat was lost or reordered', `${counts}; ${missing}`);
      }
      const acts = actionsOf(me.peer)
        .filter((x) => x.from === other.peer.you && !x.pause)
        .map((x) => (x.body as { n?: number }).n);
      const wantActs = other.actions.filter((n) => n <= other.n);
      if (JSON.stringify(acts) !== JSON.stringify(wantActs)) {
        const counts = `${me.tag} got ${acts.length} of ${wantActs.length} of ${other.tag}'s`;
        find('an honest action was lost or reordered', counts);
      }
      const spoofed = chatsOf(me.peer).filter((m) => m.from === me.peer.you);
      if (spoofed.length > 0) find('a relayed message claims its receiver as sender', `${me.tag}: ${short(spoofed)}`);
      // the host relays every Action to its origin too (the origin applies its own action only with that copy):
      // what comes back from me is exactly my own honest actions, in order
      const mine = actionsOf(me.peer)
        .filter((x) => x.from === me.peer.you && !x.pause)
        .map((x) => (x.body as { n?: number }).n);
      const wantMine = me.actions.filter((n) => n <= me.n);
      if (JSON.stringify(mine) !== JSON.stringify(wantMine)) {
        find('the copies of an origin’s own actions are not its actions in order', `${me.tag} got back ${short(mine)}`);
      }
      const fromOther = chatsOf(me.peer).filter((c) => c.from === other.peer.you && !want.includes(c.text));
      if (fromOther.length > 0) find('a chat claims an honest sender it is not from', `${me.tag}: ${short(fromOther)}`);
      for (const x of hostiles) {
        for (const e of x.expectedChats) {
          if (!chatsOf(me.peer).some((c) => c.from === e.from && c.text === e.text)) {
            const about = h.logLines().filter((l) => l.player === e.from || l.id === e.from || l.from === e.from);
            find(
              'a valid hostile chat was not relayed',
              `${me.tag} lacks ${short(e.text, 60)} (${[...e.text].length} code points) from ${e.from}; ` +
                `host log on ${e.from}: ${short(about.slice(-6), 1200)}`,
            );
            break;
          }
        }
      }
      // A line over the chat limit may be cut or refused by the host (either is fine: the decode check above
      // catches one that is sent whole); every other line must arrive as typed.
      for (const text of typed.filter((t) => [...t.trim()].length <= 500)) {
        if (!chatsOf(me.peer).some((c) => c.from === 0 && c.text === text.trim())) {
          find("the host's own chat did not reach a player", `${me.tag} lacks ${short(text, 60)}`);
          break;
        }
      }
    }
    for (const x of hostiles) x.expectedChats = [];
    cov.hit('relayed:chats-seen-by-alice', chatsOf(a.peer).length);
    cov.hit('relayed:actions-seen-by-alice', actionsOf(a.peer).length);
    cov.hit('relayed:hostile-actions-seen-by-alice', actionsOf(a.peer).filter((m) => m.from !== b.peer.you).length);
    for (const m of a.peer.received) cov.hit(`host-sent:${m.kind}`);

    // 4. No handler of the host threw (the transport logs it and closes that connection).
    const handlerFailed = h.logLines().filter((l) => l.msg === 'handler failed');
    if (handlerFailed.length > 0) find('a host handler threw', short(handlerFailed.slice(0, 3), 1500));

    const died = !h.alive();
    if (!died) {
      const code = await h.stop();
      if (code !== 0) find('the host did not stop cleanly', `exit ${code}\n${h.launcher.stderr().slice(0, 2000)}`);
    }
    return { died, rssMaxKb };
  } finally {
    clearInterval(rssTimer);
    for (const p of peers.splice(0)) p.destroy();
  }
}

export function report(seed: number, r: Awaited<ReturnType<typeof fuzz>>): string {
  const lines = [
    `host fuzz seed ${seed}: ${r.lives} host life/lives, ${r.ms} ms, max RSS ${(r.rssMaxKb / 1024).toFixed(1)} MB, ` +
      `${r.findings.length} finding(s)`,
    `coverage: ${r.cov.table()}`,
    ...r.findings.map((f) => `FINDING seed ${f.seed} life ${f.life}: ${f.what}\n  ${f.detail.replace(/\n/g, '\n  ')}`),
  ];
  return lines.join('\n');
}

