// Headless Chromium for the inspector's browser tests (Debian's chromium through playwright-core; .ci/run and
// scripts/ensure-chromium.mjs install it): one browser per test file, a fresh profile folder, no network beyond
// 127.0.0.1. Not a test file itself (the name does not end in .test.ts).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type BrowserContext } from 'playwright-core';

export const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

export interface HeadlessBrowser {
  context: BrowserContext;
  close(): Promise<void>;
}

export async function openBrowser(): Promise<HeadlessBrowser> {
  const profile = mkdtempSync(join(tmpdir(), 'fl3-chromium-'));
  // A fresh profile folder (playwright takes it as the persistent context's folder, not as an argument).
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM,
    viewport: { width: 1400, height: 1000 },
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
  });
  return {
    context,
    close: async () => {
      await context.close();
      rmSync(profile, { recursive: true, force: true });
    },
  };
}
