// The inspector in headless Chromium (issue 13): `feverlink3 inspect` serves the recorded trace of a stalled round
// (test/inspect/fixtures/stalled-round.trace.jsonl, made from a real run by makeStalledTrace.ts: player2's game and
// launcher frozen, its slot held away with the reconnect window running) and the page shows the state, the missing
// player's name and the timeout counting down as the timeline moves on; the timeline steps back to an earlier
// state; live mode follows a demo session and shows its actors appearing. Screenshots go to .tmp/.
import { mkdirSync } from 'node:fs';
import { resolve } from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { killAll, launch } from '../support/cli.ts';
import { openBrowser, type HeadlessBrowser } from './inspectorBrowser.ts';

const root = resolve(import.meta.dirname, '../..');
const fixture = resolve(root, 'test/inspect/fixtures/stalled-round.trace.jsonl');
const artifacts = resolve(root, '.tmp');

let headless: HeadlessBrowser;
beforeAll(async () => {
  mkdirSync(artifacts, { recursive: true });
  headless = await openBrowser();
});
afterAll(async () => {
  await headless?.close();
});
afterEach(async () => {
  await killAll();
});

async function openPage(url: string): Promise<Page> {
  const page = await headless.context.newPage();
  // Offline: anything not on 127.0.0.1 would fail the test.
  const outside: string[] = [];
  page.on('request', (r) => {
    if (!r.url().startsWith('http://127.0.0.1:') && !r.url().startsWith('ws://127.0.0.1:')) outside.push(r.url());
  });
  await page.goto(url);
  expect(outside).toEqual([]);
  return page;
}

const timerText = (page: Page) => page.locator('[data-round="slot:1"] .timer').first().textContent();
const leftSeconds = (text: string | null) => {
  const m = /(\d+):(\d\d) left|([\d.]+) s left/.exec(text ?? '');
  if (!m) throw new Error(`no time left in ${JSON.stringify(text)}`);
  return m[3] !== undefined ? Number(m[3]) : Number(m[1]) * 60 + Number(m[2]);
};

describe('the inspector page', () => {
  it('replays a stalled round: state, the missing player and the timeout counting down; the timeline steps back', async () => {
    const server = launch(['inspect', fixture]);
    const url = (await server.line(/^inspector: http:\/\/127\.0\.0\.1:\d+\/$/)).slice('inspector: '.length);
    const page = await openPage(url);

    const round = page.locator('[data-round="slot:1"]');
    await round.waitFor();
    await expect.poll(() => round.locator('.name').textContent()).toBe('slot:1: Away');
    expect(await round.locator('.waits').textContent()).toBe('waits for player2 (1)');
    const atEnd = leftSeconds(await timerText(page));
    expect(atEnd).toBeGreaterThan(200);
    expect(atEnd).toBeLessThan(300);
    await expect.poll(() => page.locator('[data-round="pauseOrder"] .name').textContent()).toBe('pauseOrder: Paused.Idle');
    await page.screenshot({ path: resolve(artifacts, 'inspector-stalled.png'), fullPage: true });

    // Earlier lines of the trace: the same reconnect window has more time left (it counts down as the trace moves on).
    let earlier = atEnd;
    for (let i = 0; i < 100 && earlier === atEnd; i++) {
      await page.click('#line-back');
      earlier = leftSeconds(await timerText(page));
    }
    expect(earlier).toBeGreaterThan(atEnd);
    expect(earlier).toBeLessThanOrEqual(300);

    // Back through the states until player2's slot was still Connected: the chart shows that state active.
    await page.click('[data-actor="slot:1"]');
    await page.locator('#chart svg[data-chart="playerSlot"] g.active[data-state="playerSlot.Away"]').waitFor();
    for (let i = 0; i < 200; i++) {
      if ((await page.locator('[data-actor="slot:1"] td').nth(2).textContent()) === 'Connected') break;
      await page.click('#step-back');
    }
    expect(await page.locator('[data-actor="slot:1"] td').nth(2).textContent()).toBe('Connected');
    await page.locator('#chart g.active[data-state="playerSlot.Connected"]').waitFor();
    await page.screenshot({ path: resolve(artifacts, 'inspector-stepped-back.png'), fullPage: true });
  });

  it('follows a live demo session: its actors appear', async () => {
    const demo = launch(['demo', '--players', '2', '--seconds', '8', '--inspect', '0']);
    const url = (await demo.line(/^inspector: http:\/\/127\.0\.0\.1:\d+\/ \(host\)$/, 20_000)).split(' ')[1]!;
    const page = await openPage(url);
    await expect.poll(() => page.locator('#mode').textContent()).toBe('live');
    // The players' slots and their pacing appear as they join.
    await page.locator('[data-actor="slot:1"]').waitFor({ timeout: 15_000 });
    await page.locator('[data-actor="pacing:1"]').waitFor();
    expect(await page.locator('[data-actor="lockstep"]').count()).toBe(1);
    await page.screenshot({ path: resolve(artifacts, 'inspector-live.png'), fullPage: true });
    demo.child.kill('SIGTERM');
    await demo.exited;
  });
});
