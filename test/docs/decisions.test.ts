// docs/DECISIONS.md stays findable: its Contents lists every entry exactly once under a topic, every Contents link
// lands on a heading (GitHub's anchors), and every quoted title another file cites an entry by names a real heading,
// so an entry renamed or cited from memory fails here instead of leaving a reader searching for a title that is gone.
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const root = fileURLToPath(new URL('../../', import.meta.url));
const DECISIONS = 'docs/DECISIONS.md';
const CONTENTS = 'Contents';

interface Heading { level: number; title: string; slug: string; line: number }

/** GitHub's anchor of a heading's text, before duplicates are numbered (github-slugger's rule). */
function baseSlug(title: string): string {
  return title
    .trim()
    .replace(/`/g, '')
    .toLowerCase()
    .replace(/[^\p{L}\p{M}\p{N}_ -]/gu, '')
    .replace(/ /g, '-');
}

/** Every ATX heading outside code fences, in order, with GitHub's anchor: a repeated one gets -1, -2, … */
function headingsOf(text: string): Heading[] {
  const seen = new Map<string, number>();
  const out: Heading[] = [];
  let fence: string | undefined;
  for (const [i, line] of text.split('\n').entries()) {
    const f = /^ {0,3}(`{3,}|~{3,})/.exec(line);
    if (f) {
      if (fence === undefined) fence = f[1]![0]!;
      else if (f[1]![0] === fence) fence = undefined;
      continue;
    }
    if (fence !== undefined) continue;
    const m = /^(#{1,6})[ \t]+(.*?)(?:[ \t]+#+)?[ \t]*$/.exec(line);
    if (!m) continue;
    const base = baseSlug(m[2]!);
    let slug = base;
    while (seen.has(slug)) {
      const n = seen.get(base)! + 1;
      seen.set(base, n);
      slug = `${base}-${n}`;
    }
    seen.set(slug, 0);
    out.push({ level: m[1]!.length, title: m[2]!, slug, line: i + 1 });
  }
  return out;
}

const text = readFileSync(`${root}${DECISIONS}`, 'utf8');
const lines = text.split('\n');
const headings = headingsOf(text);
const entries = headings.filter((h) => h.level === 2 && h.title !== CONTENTS);
const contentsAt = headings.find((h) => h.level === 2 && h.title === CONTENTS);

/** The lines of the Contents section: from its heading to the next `## ` or `# ` heading. */
function contentsLines(): { text: string; line: number }[] {
  if (!contentsAt) return [];
  const end = headings.find((h) => h.line > contentsAt.line && h.level <= 2)?.line ?? lines.length + 1;
  return lines.slice(contentsAt.line, end - 1).map((t, i) => ({ text: t, line: contentsAt.line + 1 + i }));
}

const LINK = /^- \[(.+)\]\(#([^)\s]+)\)$/;
const links = contentsLines().flatMap(({ text: t, line }) => {
  const m = LINK.exec(t);
  return m ? [{ text: m[1]!, anchor: m[2]!, line }] : [];
});

/** A cited title as it is compared: a leading `D<n>. ` off, whitespace collapsed. */
function normalise(title: string): string {
  return title.replace(/^D\d+\.\s+/, '').replace(/\s+/g, ' ').trim();
}

/**
 * Every quoted title cited as an entry: the file name (with or without `.md`, a colon allowed) then a double quote,
 * on the same line or at the start of the next (after a comment's `//`, `*` or `--`). Only the part of the quote on
 * its own line counts (a quote the line break cuts is compared as far as it goes), and an ellipsis ends it too.
 */
const CITE = /DECISIONS(?:\.md)?:?(?:[ \t]+|[ \t]*\r?\n[ \t]*(?:\/\/|--|\*)?[ \t]*)"([^"\n]*)/g;

function citations(): { file: string; line: number; title: string }[] {
  const files = execFileSync('git', ['ls-files', '-z'], { cwd: root, encoding: 'utf8' }).split('\0').filter(Boolean);
  const out: { file: string; line: number; title: string }[] = [];
  for (const file of files) {
    if (file.includes('node_modules/')) continue;
    let body: string;
    try { body = readFileSync(`${root}${file}`, 'utf8'); } catch { continue; } // listed but deleted in the tree
    if (body.includes('\0') || !body.includes('DECISIONS')) continue;
    for (const m of body.matchAll(CITE)) {
      const title = normalise(m[1]!.split('…')[0]!);
      if (title === '') continue;
      const at = m.index + m[0].length - m[1]!.length;
      out.push({ file, line: body.slice(0, at).split('\n').length, title });
    }
  }
  return out;
}

describe('docs/DECISIONS.md', () => {
  it('has a Contents section with entries after it', () => {
    expect(contentsAt, `${DECISIONS} has no "## ${CONTENTS}" heading`).toBeDefined();
    expect(entries.length).toBeGreaterThan(0);
    expect(entries.every((e) => e.line > contentsAt!.line), 'every entry comes after Contents').toBe(true);
  });

  it('Contents holds only topic headings and entry links', () => {
    const stray = contentsLines().filter(({ text: t }) => t.trim() !== '' && !t.startsWith('### ') && !LINK.test(t));
    expect(stray.map(({ text: t, line }) => `${DECISIONS}:${line}: ${t}`)).toEqual([]);
  });

  it('links every entry exactly once in Contents', () => {
    const count = new Map<string, number>();
    for (const l of links) count.set(l.anchor, (count.get(l.anchor) ?? 0) + 1);
    const wrong = entries
      .filter((e) => count.get(e.slug) !== 1)
      .map((e) => `${DECISIONS}:${e.line} "${e.title}" is linked ${count.get(e.slug) ?? 0} times in Contents (#${e.slug})`);
    expect(wrong).toEqual([]);
  });

  it('every Contents link lands on an entry and reads as its title', () => {
    const bySlug = new Map(entries.map((e) => [e.slug, e]));
    const wrong = links.flatMap((l) => {
      const e = bySlug.get(l.anchor);
      if (!e) return [`${DECISIONS}:${l.line}: #${l.anchor} ("${l.text}") is no entry's anchor`];
      if (e.title !== l.text) return [`${DECISIONS}:${l.line}: the link to #${l.anchor} reads "${l.text}", the heading "${e.title}"`];
      return [];
    });
    expect(wrong).toEqual([]);
  });

  it('every quoted citation of an entry names the beginning of a heading', () => {
    const titles = entries.map((e) => normalise(e.title));
    const found = citations();
    expect(found.length, 'the citation pattern finds the citations that exist').toBeGreaterThan(20);
    const missing = found
      .filter((c) => !titles.some((t) => t.startsWith(c.title)))
      .map((c) => `${c.file}:${c.line} cites "${c.title}", which begins no heading of ${DECISIONS}`);
    expect(missing).toEqual([]);
  });
});
