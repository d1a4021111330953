// Spec architecture §2 "Official API and what is not": io and os (file access, the environment, a wall clock)
// appear only in mod/feverlink3_link.lua. Comments and strings are stripped first, so only code counts.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { modDir, repoRoot } from './support/luaMod.ts';

const LINK = 'mod/feverlink3_link.lua';

/** Lua source with comments removed and every string literal emptied (short, long and with escapes). */
function stripLua(src: string): string {
  let out = '';
  let i = 0;
  while (i < src.length) {
    const c = src[i]!;
    if (c === '-' && src[i + 1] === '-') {
      const long = /^--\[(=*)\[/.exec(src.slice(i, i + 64));
      if (long) {
        const close = `]${long[1]}]`;
        const end = src.indexOf(close, i + long[0].length);
        i = end < 0 ? src.length : end + close.length;
        out += ' ';
      } else {
        const nl = src.indexOf('\n', i);
        i = nl < 0 ? src.length : nl;
      }
      continue;
    }
    if (c === '[') {
      const long = /^\[(=*)\[/.exec(src.slice(i, i + 64));
      if (long) {
        const close = `]${long[1]}]`;
        const end = src.indexOf(close, i + long[0].length);
        i = end < 0 ? src.length : end + close.length;
        out += '""';
        continue;
      }
    }
    if (c === '"' || c === "'") {
      let j = i + 1;
      while (j < src.length && src[j] !== c && src[j] !== '\n') j += src[j] === '\\' ? 2 : 1;
      i = j + 1;
      out += '""';
      continue;
    }
    out += c;
    i++;
  }
  return out;
}

/** The places where the globals io or os are used in code (a field like x.io or x:os does not count). */
function ioOsUses(src: string): string[] {
  const code = stripLua(src);
  const found: string[] = [];
  const re = /(^|[^.:\w])(io|os)\b/g;
  for (const m of code.matchAll(re)) {
    const line = code.slice(0, m.index).split('\n').length;
    found.push(`line ${line}: ${m[2]}`);
  }
  return found;
}

function luaFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return luaFiles(path);
    return name.endsWith('.lua') ? [path] : [];
  });
}

describe('official API: io and os only in feverlink3_link.lua', () => {
  const files = luaFiles(modDir).map((f) => relative(repoRoot, f));

  it('finds the mod files, the link module among them', () => {
    expect(files).toContain(LINK);
    expect(files.length).toBeGreaterThan(5);
  });

  it.each(files.filter((f) => f !== LINK))('%s uses neither io nor os', (file) => {
    expect(ioOsUses(readFileSync(join(repoRoot, file), 'utf8'))).toEqual([]);
  });

  it('the link module does use them (the check sees real uses)', () => {
    const uses = ioOsUses(readFileSync(join(repoRoot, LINK), 'utf8'));
    expect(uses.some((u) => u.endsWith(': io'))).toBe(true);
    expect(uses.some((u) => u.endsWith(': os'))).toBe(true);
  });

  it('counts code, not comments or strings, and not fields named io/os', () => {
    expect(ioOsUses('local f = io.open("x")')).toEqual(['line 1: io']);
    expect(ioOsUses('x = 1\nlocal c = os.clock()')).toEqual(['line 2: os']);
    expect(ioOsUses('local e = os["getenv"]')).toEqual(['line 1: os']);
    expect(ioOsUses('local o = io')).toEqual(['line 1: io']);
    expect(ioOsUses('-- io.open here\nlocal s = "os.exit" .. \'io.write\'')).toEqual([]);
    expect(ioOsUses('--[==[ os.exit() ]==] local t = [[io.open]] local u = t.io; t:os()')).toEqual([]);
    expect(ioOsUses('local ratio, pos, iox = 1, 2, 3')).toEqual([]);
    expect(ioOsUses('local s = "a \\" io.x" .. io.y')).toEqual(['line 1: io']);
  });
});
