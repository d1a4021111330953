// The bug-report wiring (actors/host/report.ts, actors/player/reportPart.ts) over real sessions on 127.0.0.1 with the
// real file side (adapters/report/reportIo.ts): the host's round runs on a simulated clock, so the 60 s part timeout
// is a clock step, never a sleep. Paths: every part in and the zip at the asker; a part missing after 60 s; the asker
// leaving; a busy request; a game leaving mid-report; bad chunks and a bad part refused without ending anything.
import { existsSync } from 'node:fs';
import { readFile, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { unzipSync } from 'fflate';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { SimulatedClock } from 'xstate';
import { attachReport, type HostReport, type HostReportNotice } from '../../actors/host/report.ts';
import { attachReportPart, type PlayerReport, type PlayerReportNotice } from '../../actors/player/reportPart.ts';
import { hostReportIo, playerReportIo } from '../../adapters/report/reportIo.ts';
import type { ReportIndex } from '../../machines/rules/reportIndex.ts';
import { REPORT_PARTS_TIMEOUT_MS } from '../../machines/rules/reportRound.ts';
import { joinedPlayer, startHost, waitFor, type TestHost, type TestPlayer } from '../support/session.ts';
import { sessionFolder, tempDir } from '../adapters/report/reportSupport.ts';

let root: string;
beforeAll(async () => {
  root = await tempDir('fl3-report-wiring-');
  return () => rm(root, { recursive: true, force: true });
});

interface Run {
  h: TestHost;
  clock: SimulatedClock;
  report: HostReport;
  hostNotices: HostReportNotice[];
  hostDir: string;
  players: { p: TestPlayer; dir: string; report?: PlayerReport; notices: PlayerReportNotice[] }[];
}
let run: Run | undefined;
let seq = 0;

afterEach(async () => {
  for (const pl of run?.players ?? []) await pl.report?.stop();
  await run?.report.stop();
  await run?.h.close();
  run = undefined;
});

/** A host with its part folder and players: `answering` run the part wiring, `silent` are plain sessions. */
async function start(answering: string[], silent: string[] = []): Promise<Run> {
  const base = join(root, `run${++seq}`);
  const h = await startHost({ silenceMs: 3_600_000 });
  const clock = h.clock as SimulatedClock;
  const hostDir = await sessionFolder(base, 'host');
  const hlog = (e: { msg: string }) => void h.logs.push(e);
  const report = attachReport(
    h.host,
    { clock, log: hlog, wallClock: () => 1_700_000_000_000 + clock.now(), randomSalt: () => 'c2FsdA', io: hostReportIo({ dir: hostDir, clock, log: hlog, names: ['margarethe'] }) },
    { session: 'test', hostVersion: '0.1', protocol: 1 },
  );
  const hostNotices: HostReportNotice[] = [];
  report.on((n) => hostNotices.push(n));
  const players: Run['players'] = [];
  for (const name of [...answering, ...silent]) {
    const p = await joinedPlayer(h.port, name);
    const dir = await sessionFolder(base, name);
    const notices: PlayerReportNotice[] = [];
    let pr: PlayerReport | undefined;
    if (answering.includes(name)) {
      const log = (e: { msg: string }) => void p.logs.push(e);
      pr = attachReportPart(p.player, { clock: new SimulatedClock(), log, io: playerReportIo({ dir, clock: new SimulatedClock(), log, names: ['margarethe'] }) });
      pr.on((n) => notices.push(n));
    }
    players.push({ p, dir, ...(pr ? { report: pr } : {}), notices });
  }
  await waitFor(() => h.host.players().length === players.length + 1, 5000, 'every player seated');
  run = { h, clock, report, hostNotices, hostDir, players };
  return run;
}

const logged = (r: Run, msg: string) => r.h.logs.filter((l) => l.msg === msg);
const indexOf = (zip: Uint8Array): ReportIndex => JSON.parse(new TextDecoder().decode(unzipSync(zip)['report.json']!)) as ReportIndex;
const askOf = (p: TestPlayer) => p.games().find((m) => m.kind === 'ReportAsk');

describe('bug report wiring', () => {
  it('a player asks: every game answers, the one zip reaches the asker with a folder per game and report.json', async () => {
    const r = await start(['ada', 'bob']);
    const ada = r.players[0]!;
    expect(ada.report!.request('the bridge vanished')).toBe(true);
    const got = await waitFor(() => ada.notices.find((n) => n.type === 'received'), 10_000, 'the bundle at the asker');
    expect(got.type === 'received' && got.path).toBe(join(ada.dir, 'feverlink3-report-1.zip'));
    const files = unzipSync(await readFile(join(ada.dir, 'feverlink3-report-1.zip')));
    for (const game of ['game-0', 'game-1', 'game-2']) {
      expect(files[`${game}/launcher.log`], game).toBeDefined();
      expect(files[`${game}/trace.jsonl`], game).toBeDefined();
    }
    expect(Object.keys(files).some((f) => f.endsWith('.sav'))).toBe(false);
    const index = indexOf(await readFile(join(ada.dir, 'feverlink3-report-1.zip')));
    expect(index.askedBy).toEqual({ id: 1, name: 'ada' });
    expect(index.note).toBe('the bridge vanished');
    expect(index.missing).toEqual([]);
    expect(index.players.map((p) => p.folder)).toEqual(['game-0', 'game-1', 'game-2']);
    // Pseudonymised with the round's salt: the user name is gone from every game's logs.
    for (const [name, data] of Object.entries(files)) expect(new TextDecoder().decode(data), name).not.toContain('margarethe');
    // The host keeps its copy; no part file or temp file is left behind.
    await waitFor(() => logged(r, 'bug report: sent to the asker').length === 1, 5000, 'the sent line');
    expect(existsSync(join(r.hostDir, 'feverlink3-report-1.zip'))).toBe(true);
    for (const pl of r.players) expect(existsSync(join(pl.dir, 'feverlink3-report-1-part-2.zip'))).toBe(false);
    expect(String(r.report.actor.getSnapshot().value)).toBe('Idle');
  });

  it('a part missing: 60 s after the ask on the host clock the round closes without it, report.json says why', async () => {
    const r = await start(['ada'], ['mute']);
    r.report.request('from the host');
    await waitFor(() => logged(r, 'bug report: part received').length === 2, 10_000, 'the host and ada parts');
    expect(String(r.report.actor.getSnapshot().value)).toBe('Collecting');
    r.clock.increment(REPORT_PARTS_TIMEOUT_MS);
    const written = await waitFor(() => r.hostNotices.find((n) => n.type === 'written'), 10_000, 'the zip written');
    expect(written.type === 'written' && written.missing).toBe(1);
    const index = indexOf(await readFile(join(r.hostDir, 'feverlink3-report-1.zip')));
    expect(index.missing).toEqual([{ id: 2, name: 'mute', why: 'no part after 60 s' }]);
    expect(index.players.find((p) => p.id === 2)).toEqual({ id: 2, name: 'mute', missing: 'no part after 60 s' });
  });

  it('the asker leaving abandons the round and drops the zip', async () => {
    const r = await start(['ada'], ['mute']);
    const ada = r.players[0]!;
    ada.report!.request();
    await waitFor(() => logged(r, 'bug report: part received').length === 2, 10_000, 'the host and ada parts');
    ada.p.player.leave();
    const abandoned = await waitFor(() => logged(r, 'bug report: abandoned')[0], 5000, 'the round abandoned');
    expect(abandoned.why).toBe('the asker left (left)');
    await waitFor(() => !existsSync(join(r.hostDir, 'feverlink3-report-1.zip')), 5000, 'the zip dropped');
    expect(r.hostNotices).toEqual([{ type: 'abandoned', report: 1, why: 'the asker left (left)' }]);
    expect(String(r.report.actor.getSnapshot().value)).toBe('Idle');
  });

  it('a request while one is made gets ReportBusy naming the report and its asker', async () => {
    const r = await start(['ada'], ['mute']);
    r.report.request();
    await waitFor(() => askOf(r.players[1]!.p), 5000, 'the ask at mute');
    r.players[0]!.report!.request('me too');
    const busy = await waitFor(() => r.players[0]!.notices.find((n) => n.type === 'busy'), 5000, 'ReportBusy');
    expect(busy).toEqual({ type: 'busy', report: 1, byName: 'host' });
    expect(logged(r, 'bug report: busy, request refused')).toHaveLength(1);
  });

  it('a game leaving mid-report is missing at once and the round closes without waiting 60 s', async () => {
    const r = await start(['ada'], ['mute']);
    r.report.request();
    await waitFor(() => logged(r, 'bug report: part received').length === 2, 10_000, 'the host and ada parts');
    r.players[1]!.p.player.leave();
    await waitFor(() => r.hostNotices.find((n) => n.type === 'written'), 10_000, 'the zip written');
    const index = indexOf(await readFile(join(r.hostDir, 'feverlink3-report-1.zip')));
    expect(index.missing).toEqual([{ id: 2, name: 'mute', why: 'left during the report (left)' }]);
  });

  it('bad chunks are refused and a bad part is missing with why; the sender stays in the session', async () => {
    const r = await start([], ['mute']);
    const mute = r.players[0]!.p;
    r.report.request();
    const ask = await waitFor(() => askOf(mute), 5000, 'the ask at mute');
    const id = ask.kind === 'ReportAsk' ? ask.payload.id : -1;
    const chunk = { index: 0, count: 1, sha256: 'ab'.repeat(32), data: new TextEncoder().encode('not the part') };
    mute.player.send('ReportPart', { id: id + 50, ...chunk });
    await waitFor(() => logged(r, 'report part chunk refused').find((l) => l.why === 'unknown transfer'), 5000, 'the unknown transfer refused');
    mute.player.send('ReportPart', { id, ...chunk });
    await waitFor(() => r.hostNotices.find((n) => n.type === 'written'), 10_000, 'the zip written');
    const index = indexOf(await readFile(join(r.hostDir, 'feverlink3-report-1.zip')));
    expect(index.missing).toEqual([{ id: 1, name: 'mute', why: 'part refused: sha256 mismatch' }]);
    expect(index.players.find((p) => p.id === 0)?.folder).toBe('game-0');
    expect(mute.ended()).toBeUndefined();
    expect(r.h.host.connectedIds()).toEqual([1]);
  });
});
