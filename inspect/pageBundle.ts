// The page's static files (inspect/page/): index.html and style.css as they are, and app.js bundled from
// inspect/page/main.ts with esbuild at the first request (it imports the pure modules of inspect/, so the page and
// the tests run the same code). esbuild is loaded by a computed name so that a bundle of the launcher does not try
// to bundle esbuild itself; a build without it (the single binary, for now) answers with a clear error.
import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { dirname, join } from 'node:path';

const here = dirname(fileURLToPath(import.meta.url));
export const PAGE_DIR = join(here, 'page');

export const STATIC_FILES: Record<string, { file: string; type: string }> = {
  '/': { file: 'index.html', type: 'text/html; charset=utf-8' },
  '/index.html': { file: 'index.html', type: 'text/html; charset=utf-8' },
  '/style.css': { file: 'style.css', type: 'text/css; charset=utf-8' },
};

let bundled: Promise<string> | undefined;

/** The page's script, bundled once per process. */
export function pageScript(): Promise<string> {
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
    entryPoints: [join(PAGE_DIR, 'main.ts')],
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
  return readFile(join(PAGE_DIR, entry.file), 'utf8').then((body) => ({ body, type: entry.type }));
}
