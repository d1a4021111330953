// The page's static files (inspect/page/): index.html and style.css as they are, and app.js bundled from
// inspect/page/main.ts with esbuild at the first request (it imports the pure modules of inspect/, so the page and
// the tests run the same code). esbuild is loaded by a computed name so that a bundle of the launcher does not try
// to bundle esbuild itself. The single binary has no esbuild and no page folder: scripts/release.mjs builds the page
// once and carries it as an asset, which the binary's entry hands over with useEmbeddedPage.
import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { dirname, join } from 'node:path';

/** inspect/page/ of a checkout; asked only there (import.meta is empty in the binary's CommonJS bundle). */
function pageDir(): string {
  return join(dirname(fileURLToPath(import.meta.url)), 'page');
}

export const STATIC_FILES: Record<string, { file: string; type: string }> = {
  '/': { file: 'index.html', type: 'text/html; charset=utf-8' },
  '/index.html': { file: 'index.html', type: 'text/html; charset=utf-8' },
  '/style.css': { file: 'style.css', type: 'text/css; charset=utf-8' },
};

/** The page built ahead of time: app.js and the static files by name (index.html, style.css). */
export interface EmbeddedPage {
  readonly script: string;
  readonly files: Readonly<Record<string, string>>;
}

let embedded: EmbeddedPage | undefined;
let bundled: Promise<string> | undefined;

/** Serve this page instead of inspect/page/ (the single binary, adapters/cli/seaMain.ts). */
export function useEmbeddedPage(page: EmbeddedPage): void {
  embedded = page;
}

/** The page's script, bundled once per process. */
export function pageScript(): Promise<string> {
  if (embedded) return Promise.resolve(embedded.script);
  bundled ??= buildScript();
  bundled.catch(() => {
    bundled = undefined;
  });
  return bundled;
}

async function buildScript(): Promise<string> {
  const name = ['es', 'build'].join('');
  const esbuild = createRequire(import.meta.url)(name) as typeof import('esbuild');
  const result = await esbuild.build({
    entryPoints: [join(pageDir(), 'main.ts')],
    bundle: true,
    write: false,
    format: 'esm',
    target: 'es2022',
    platform: 'browser',
    logLevel: 'silent',
  });
  return result.outputFiles[0]!.text;
}

/** A static file of the page. */
export function pageFile(path: string): Promise<{ body: string; type: string }> | undefined {
  const entry = STATIC_FILES[path];
  if (!entry) return undefined;
  if (embedded) {
    const body = embedded.files[entry.file];
    return body === undefined ? undefined : Promise.resolve({ body, type: entry.type });
  }
  return readFile(join(pageDir(), entry.file), 'utf8').then((body) => ({ body, type: entry.type }));
}
