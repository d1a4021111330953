// What the launcher prints to a terminal (adapters/cli/sanitize.ts, terminal.ts): names and chat come from
// other people, so nothing in them may act on the terminal: no escape sequences, no C0/C1 controls, no
// line breaks that fake a line, no bidi overrides that reverse what follows (Trojan Source).
import { describe, expect, it } from 'vitest';
import { terminalSafe } from '../../adapters/cli/sanitize.ts';
import { formatChat, formatRoster } from '../../adapters/cli/terminal.ts';

const R = '\ufffd';

describe('terminalSafe', () => {
  it('keeps ordinary text of any script, emoji sequences included', () => {
    for (const text of ['Anna', 'Zoë Ångström', '日本語のチャット', 'مرحبا', 'שלום', '👨‍👩‍👧 ok', 'a  b', '[x] {y} "z" \\ ~']) {
      expect(terminalSafe(text)).toBe(text);
    }
  });

  it('replaces escape sequences, C0 and C1 controls and DEL', () => {
    expect(terminalSafe('evil\x1b[2J\x1b]0;title\x07')).toBe(`evil${R}[2J${R}]0;title${R}`);
    expect(terminalSafe('a\rb\nc\x00d\x08e\x7ff')).toBe(`a${R}b${R}c${R}d${R}e${R}f`);
    expect(terminalSafe('\u009b31m\u0085\u009d')).toBe(`${R}31m${R}${R}`);
    expect(terminalSafe('a\tb')).toBe('a b');
    for (let c = 0; c < 0xa0; c++) {
      const ch = String.fromCharCode(c);
      const printable = c >= 0x20 && c < 0x7f; // a TAB becomes a space, checked above
      expect(terminalSafe(ch) === ch, `U+${c.toString(16)}`).toBe(printable);
    }
  });

  it('replaces bidi overrides, embeddings, isolates and marks, invisible formats and line separators', () => {
    const bidi = ['\u202a', '\u202b', '\u202c', '\u202d', '\u202e', '\u2066', '\u2067', '\u2068', '\u2069', '\u200e', '\u200f', '\u061c'];
    for (const ch of bidi) expect(terminalSafe(`x${ch}y`)).toBe(`x${R}y`);
    for (const ch of ['\u200b', '\ufeff', '\u2060', '\u2028', '\u2029']) expect(terminalSafe(`x${ch}y`)).toBe(`x${R}y`);
    expect(terminalSafe('admin\u202egnp.exe')).toBe(`admin${R}gnp.exe`);
  });

  it('replaces lone surrogates and is idempotent', () => {
    expect(terminalSafe('a\ud800b\udc00')).toBe(`a${R}b${R}`);
    const nasty = 'x\x1b[31m\u202e\ud800\u0085y';
    expect(terminalSafe(terminalSafe(nasty))).toBe(terminalSafe(nasty));
  });
});

describe('terminal lines', () => {
  it('chat and the roster print names and text made safe, one line each', () => {
    const chat = formatChat('bob\x1b[2J', 'hi\nfake line\u202e');
    expect(chat).toBe(`[chat] bob${R}[2J: hi${R}fake line${R}`);
    expect(formatChat('eve', 'x', 'warn\x1b')).toBe(`[warn${R}] eve: x`);
    expect(formatRoster([{ id: 1, name: 'a\u009bb', away: true, rtt: 12.34 }])).toBe(`a${R}b (1) away 12.3 ms`);
  });
});
