// Where the launcher runs from: a checkout (tsx compiles the sources; bin/feverlink3.js is the entry) or the
// single binary (a Node SEA built by scripts/release.mjs, docs/RELEASE.md). The few places that start this
// program again (the simulated game, the demo's launchers) or read a file that ships with it (the mod's Lua
// files, wasmoon's WebAssembly, the version, the inspector's page) ask here, so the rest of the code does not know which it is.
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import * as sea from 'node:sea';

/** True inside the single binary. */
export const inSea: boolean = sea.isSea();

/** The checkout's root (never called inside the binary, where import.meta is empty). */
function checkoutRoot(): string {
  return resolve(import.meta.dirname, '..');
}

/** How to start this program again with `args`: the binary runs itself; a checkout runs node on its entry. */
export function selfCommand(args: readonly string[]): { command: string; args: string[] } {
  if (inSea) return { command: process.execPath, args: [...args] };
  return { command: process.execPath, args: [join(checkoutRoot(), 'bin', 'feverlink3.js'), ...args] };
}

/** The launcher's version (package.json's, carried into the binary as the asset `version`). */
export function version(): string {
  if (inSea) return sea.getAsset('version', 'utf8').trim();
  return (JSON.parse(readFileSync(join(checkoutRoot(), 'package.json'), 'utf8')) as { version: string }).version;
}

/** The mod folder of a checkout; undefined in the binary (the mod's files are assets there: modSources). */
export function defaultModDir(): string | undefined {
  return inSea ? undefined : join(checkoutRoot(), 'mod');
}

/** The mod's Lua files carried in the binary: name (without .lua) → source. Undefined in a checkout. */
export function modSources(): Record<string, string> | undefined {
  if (!inSea) return undefined;
  return JSON.parse(sea.getAsset('mod.json', 'utf8')) as Record<string, string>;
}

/**
 * The path of wasmoon's glue.wasm. In a checkout: undefined (wasmoon finds its own). In the binary wasmoon can
 * only read it from a file, so the asset is written once to the temporary folder under a name made of its hash
 * (written to a unique name, then renamed: processes starting together never see half a file).
 */
export function luaWasmPath(): string | undefined {
  if (!inSea) return undefined;
  const bytes = new Uint8Array(sea.getAsset('glue.wasm'));
  const hash = createHash('sha256').update(bytes).digest('hex').slice(0, 16);
  const dir = join(tmpdir(), 'feverlink3');
  const path = join(dir, `glue-${hash}.wasm`);
  if (!existsSync(path)) {
    mkdirSync(dir, { recursive: true });
    const part = `${path}.${process.pid}.part`;
    writeFileSync(part, bytes);
    renameSync(part, path);
  }
  return path;
}

/** The inspector's page built by scripts/release.mjs (app.js, index.html, style.css); undefined in a checkout. */
export function inspectorPage(): { script: string; files: Record<string, string> } | undefined {
  if (!inSea) return undefined;
  return JSON.parse(sea.getAsset('inspect-page.json', 'utf8')) as { script: string; files: Record<string, string> };
}
