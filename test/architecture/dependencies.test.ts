// The dependency rule of DESIGN.md, enforced: data flows one way through the layers.
// protocol/ and machines/ are pure (no `node:` imports, no clock reads) so they run in the browser.
import { readFileSync, readdirSync, statSync } from 'node:fs';
import { join, relative, resolve, dirname, sep } from 'node:path';
import { describe, expect, it } from 'vitest';

const root = resolve(import.meta.dirname, '../..');

/** Which top-level folders of ours each layer may import. */
const mayImport: Record<string, readonly string[]> = {
  protocol: ['protocol'],
  machines: ['machines', 'protocol'],
  actors: ['actors', 'machines', 'protocol'],
  native: ['native', 'protocol'],
  inspect: ['inspect', 'machines', 'protocol'],
  adapters: ['adapters', 'actors', 'machines', 'protocol', 'native', 'inspect'],
};
const pureLayers = new Set(['protocol', 'machines']);
const forbiddenInPure = /\b(setTimeout|setInterval|Date\.now\(|performance\.now\()/;

function sourceFiles(dir: string): string[] {
  let out: string[] = [];
  let names: string[];
  try { names = readdirSync(dir); } catch { return out; }
  for (const name of names) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) out = out.concat(sourceFiles(path));
    else if (/\.(ts|js|mjs)$/.test(name)) out.push(path);
  }
  return out;
}

function importsOf(source: string): string[] {
  const found: string[] = [];
  const re = /(?:import|export)\s[^'"]*?from\s*['"]([^'"]+)['"]|import\s*\(\s*['"]([^'"]+)['"]\s*\)|import\s+['"]([^'"]+)['"]/g;
  for (const m of source.matchAll(re)) found.push((m[1] ?? m[2] ?? m[3])!);
  return found;
}

const layers = Object.keys(mayImport);
const files = layers.flatMap((layer) => sourceFiles(join(root, layer)).map((file) => ({ layer, file })));

describe('dependency rule', () => {
  it('finds the layers to check', () => {
    expect(files.some((f) => f.layer === 'protocol')).toBe(true);
  });

  it.each(files.map((f) => [relative(root, f.file), f] as const))('%s imports only what its layer may', (_name, { layer, file }) => {
    const source = readFileSync(file, 'utf8');
    for (const spec of importsOf(source)) {
      if (spec.startsWith('.')) {
        const target = relative(root, resolve(dirname(file), spec)).split(sep)[0]!;
        expect(mayImport[layer], `${spec} (layer ${target})`).toContain(target);
      } else if (pureLayers.has(layer)) {
        expect(spec.startsWith('node:') || ['fs', 'net', 'timers', 'process', 'crypto'].includes(spec), spec).toBe(false);
      }
    }
    if (pureLayers.has(layer)) {
      const code = source.replace(/\/\/.*$/gm, '').replace(/\/\*[\s\S]*?\*\//g, '');
      expect(forbiddenInPure.test(code), 'reads the real clock or timers').toBe(false);
    }
  });
});
