// Link line format `<Kind>\t<json>\n`: formatting, parsing, and that parsing never throws (session folder contract).
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { formatLinkLine, isLinkKind, parseLinkLine } from '../../../adapters/fileLink/linkLine.ts';

const kindArb = fc.stringMatching(/^[A-Za-z][A-Za-z0-9_]{0,30}$/);

describe('formatLinkLine', () => {
  it('writes kind, a tab, the JSON payload and one newline', () => {
    expect(formatLinkLine('Hello', { time: 0 })).toBe('Hello\t{"time":0}\n');
    expect(formatLinkLine('Chat', { text: 'a\nb\tc' })).toBe('Chat\t{"text":"a\\nb\\tc"}\n');
    expect(formatLinkLine('Clock', undefined)).toBe('Clock\tnull\n');
  });

  it('refuses a kind that is not a name, and a payload JSON cannot carry', () => {
    for (const kind of ['', 'Two words', 'Tab\tKind', 'New\nLine', '1Hello', 'x'.repeat(65)]) {
      expect(() => formatLinkLine(kind, {}), kind).toThrow(TypeError);
    }
    expect(() => formatLinkLine('Action', { n: 1n })).toThrow(TypeError);
    const cycle: Record<string, unknown> = {};
    cycle['self'] = cycle;
    expect(() => formatLinkLine('Action', cycle)).toThrow(TypeError);
  });

  it('always gives exactly one line with exactly one raw tab, and parses back to the same payload', () => {
    fc.assert(
      fc.property(kindArb, fc.jsonValue(), (kind, payload) => {
        const line = formatLinkLine(kind, payload);
        expect(line.endsWith('\n')).toBe(true);
        expect(line.indexOf('\n')).toBe(line.length - 1);
        expect(line.split('\t')).toHaveLength(2);
        const parsed = parseLinkLine(line.slice(0, -1));
        expect(parsed).toEqual({ ok: true, line: { kind, payload: JSON.parse(JSON.stringify(payload)) } });
      }),
      { numRuns: 500 },
    );
  });
});

describe('parseLinkLine', () => {
  it('accepts an unknown kind (not an error at this level) and a trailing CR', () => {
    expect(parseLinkLine('NoSuchKind\t[1,2]')).toEqual({ ok: true, line: { kind: 'NoSuchKind', payload: [1, 2] } });
    expect(parseLinkLine('Hello\t{"time":5}\r')).toEqual({ ok: true, line: { kind: 'Hello', payload: { time: 5 } } });
  });

  it('gives a reason for no tab, a bad kind, and bad JSON', () => {
    expect(parseLinkLine('Hello {"time":5}')).toEqual({ ok: false, reason: 'no tab between kind and payload' });
    expect(parseLinkLine('')).toMatchObject({ ok: false });
    expect(parseLinkLine('He llo\t{}')).toMatchObject({ ok: false, reason: expect.stringContaining('bad kind') });
    expect(parseLinkLine('\t{}')).toMatchObject({ ok: false, reason: expect.stringContaining('bad kind') });
    expect(parseLinkLine('Hello\t{"time":')).toMatchObject({ ok: false, reason: expect.stringContaining('bad JSON') });
    expect(parseLinkLine('Hello\t')).toMatchObject({ ok: false, reason: expect.stringContaining('bad JSON') });
  });

  it('keeps a "__proto__" key as data, never as a prototype', () => {
    const parsed = parseLinkLine('Action\t{"__proto__":{"polluted":true}}');
    expect(parsed.ok && Object.hasOwn(parsed.line.payload as object, '__proto__')).toBe(true);
    expect(({} as Record<string, unknown>)['polluted']).toBeUndefined();
  });

  it('never throws, whatever the text', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary', maxLength: 200 }), (text) => {
        const parsed = parseLinkLine(text);
        expect(typeof parsed.ok).toBe('boolean');
        if (!parsed.ok) expect(parsed.reason.length).toBeGreaterThan(0);
      }),
      { numRuns: 2000 },
    );
  });

  it('isLinkKind accepts the spec names', () => {
    for (const kind of ['Hello', 'Clock', 'Action', 'PeerClock', 'BuildVeto', 'ActionRefused', 'SpeedRequest']) {
      expect(isLinkKind(kind)).toBe(true);
    }
  });
});
