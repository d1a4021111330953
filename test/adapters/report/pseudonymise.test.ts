// The pseudonymising rule (adapters/report/pseudonymise.ts) as properties (fast-check): no home folder's user segment
// and no given name survives, the same value gets the same pseudonym everywhere (one salt) and another under another
// salt, the rule is idempotent, text that names nobody is unchanged. Coverage floors on the kinds of path generated.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { makePseudonymiser, MIN_NAME_CHARS, PSEUDONYM, pseudonymFor } from '../../../adapters/report/pseudonymise.ts';

const LETTERS = 'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_.-éß';
/** A user name: letters, digits, _ . - and some non-ASCII; sometimes with an inner space (Windows allows it). */
const userArb = fc
  .tuple(fc.array(fc.constantFrom(...LETTERS), { minLength: 3, maxLength: 12 }), fc.option(fc.array(fc.constantFrom(...LETTERS), { minLength: 1, maxLength: 6 }), { nil: undefined }))
  .map(([a, b]) => (b === undefined ? a.join('') : `${a.join('')} ${b.join('')}`))
  .filter((u) => !/^[.]/.test(u) && !PSEUDONYM.test(u) && !/anon-[0-9a-f]{8}/.test(u));

const STYLES = ['posix-home', 'mac-users', 'windows', 'windows-json', 'windows-forward', 'var-home', 'docs-and-settings'] as const;
type Style = (typeof STYLES)[number];

function homePath(style: Style, user: string, rest: string): string {
  switch (style) {
    case 'posix-home': return `/home/${user}/${rest}`;
    case 'mac-users': return `/Users/${user}/${rest}`;
    case 'windows': return `C:\\Users\\${user}\\${rest}`;
    case 'windows-json': return `D:\\\\Users\\\\${user}\\\\${rest}`;
    case 'windows-forward': return `c:/users/${user}/${rest}`;
    case 'var-home': return `/var/home/${user}/${rest}`;
    case 'docs-and-settings': return `C:\\Documents and Settings\\${user}\\${rest}`;
  }
}

const fillerArb = fc.constantFrom('opened', 'step 42 ok', '{"msg":"x","n":3}', 'path=', ' ', 'Session\t{"started":true}', 'héllo wörld');
const restArb = fc.constantFrom('AppData', 'x.log', '.local/share/tf3', 'saves', 'Documents/TF3');
const saltArb = fc.string({ minLength: 1, maxLength: 16 });

describe('pseudonymise', () => {
  it('leaves no user segment of a home path, the same user the same pseudonym, idempotent', () => {
    const seen = new Map<string, number>();
    fc.assert(
      fc.property(saltArb, userArb, fc.array(fc.tuple(fc.constantFrom(...STYLES), restArb, fillerArb), { minLength: 1, maxLength: 6 }), (salt, user, pieces) => {
        const p = makePseudonymiser({ salt });
        const text = pieces.map(([style, rest, filler]) => `${filler} ${homePath(style, user, rest)} ${filler}`).join('\n');
        const out = p(text);
        const pseudonym = pseudonymFor(salt, user);
        for (const [style, rest] of pieces) {
          expect(out).toContain(homePath(style, pseudonym, rest));
          seen.set(style, (seen.get(style) ?? 0) + 1);
        }
        for (const [style] of pieces) expect(out).not.toContain(homePath(style, user, ''));
        expect(p(out)).toBe(out);
        if (user.includes(' ')) seen.set('user with a space', (seen.get('user with a space') ?? 0) + 1);
      }),
      { numRuns: 400, seed: 14_001 },
    );
    for (const style of STYLES) expect(seen.get(style) ?? 0, style).toBeGreaterThanOrEqual(100);
    expect(seen.get('user with a space') ?? 0).toBeGreaterThanOrEqual(40);
  });

  it('replaces every given name as a whole word, any case, and not inside a longer word', () => {
    let replaced = 0;
    let kept = 0;
    fc.assert(
      fc.property(saltArb, fc.stringMatching(/^[a-z][a-z0-9]{2,10}$/), fc.constantFrom('lower', 'upper', 'as is'), (salt, name, casing) => {
        const shown = casing === 'lower' ? name.toLowerCase() : casing === 'upper' ? name.toUpperCase() : name;
        const p = makePseudonymiser({ salt, names: [name] });
        const out = p(`user ${shown} on ${shown}x and x${shown}, "${shown}"`);
        expect(out).toBe(`user ${pseudonymFor(salt, name)} on ${shown}x and x${shown}, "${pseudonymFor(salt, name)}"`);
        expect(p(out)).toBe(out);
        replaced += 2;
        kept += 2;
      }),
      { numRuns: 200, seed: 14_002 },
    );
    expect(replaced).toBeGreaterThanOrEqual(400);
    expect(kept).toBeGreaterThanOrEqual(400);
  });

  it('text that names nobody is unchanged; short names only inside home paths', () => {
    let tried = 0;
    fc.assert(
      fc.property(saltArb, fc.array(fillerArb, { maxLength: 8 }), (salt, fillers) => {
        const text = fillers.join('\n');
        expect(makePseudonymiser({ salt, names: ['zz'] })(text)).toBe(text);
        tried++;
      }),
      { numRuns: 200, seed: 14_003 },
    );
    expect(tried).toBe(200);
    const p = makePseudonymiser({ salt: 's', names: ['al'] });
    expect('al'.length).toBeLessThan(MIN_NAME_CHARS);
    expect(p('al said: /home/al/x')).toBe(`al said: /home/${pseudonymFor('s', 'al')}/x`);
  });

  it('another salt gives another pseudonym; pseudonyms have the documented form', () => {
    let pairs = 0;
    fc.assert(
      fc.property(userArb, saltArb, saltArb, (user, a, b) => {
        fc.pre(a !== b);
        const pa = pseudonymFor(a, user);
        expect(pa).toMatch(PSEUDONYM);
        expect(pa).not.toBe(pseudonymFor(b, user));
        // Case does not matter (where upper case maps back: 'ß' upper-cases to 'SS').
        if (user.toUpperCase().toLowerCase() === user.toLowerCase()) expect(pseudonymFor(a, user.toUpperCase())).toBe(pseudonymFor(a, user));
        pairs++;
      }),
      { numRuns: 300, seed: 14_004 },
    );
    expect(pairs).toBeGreaterThanOrEqual(250);
  });

  it('the examples of the documented rule', () => {
    const p = makePseudonymiser({ salt: 'c2FsdA', names: ['margarethe', 'MARGS-PC'] });
    const u = pseudonymFor('c2FsdA', 'margarethe');
    expect(p('C:\\Users\\John Smith\\AppData\\x.log')).toBe(`C:\\Users\\${pseudonymFor('c2FsdA', 'John Smith')}\\AppData\\x.log`);
    expect(p('/home/margarethe is here')).toBe(`/home/${u} is here`);
    expect(p('margarethe@margs-pc: ok')).toBe(`${u}@${pseudonymFor('c2FsdA', 'MARGS-PC')}: ok`);
    expect(p('/srv/tf3/saves/a.sav')).toBe('/srv/tf3/saves/a.sav');
  });
});
