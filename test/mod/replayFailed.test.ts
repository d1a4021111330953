// ReplayFailed 35 and the vetoes in words, in the Lua mod (wasmoon Lua 5.4 and Debian's lua5.2) with the TEST DOUBLE
// engine (spec wire-protocol ReplayFailed 35 game → host {detail}, "Resync policy": ReplayFailed from any game → a
// repair at once; architecture §6 "Held builds in a paused game, resyncs, vetoes in words" (3)): a veto of a build this
// game had already applied leaves its world holding what every other game dropped, so it writes ReplayFailed once; the
// originator says in the chat "exists on their game only; the games will be synchronised", or "cancelled on every
// game" while its command was still held. Every line written passes the launcher's gate for game lines (the schema).
import { describe, expect, it } from 'vitest';
import { checkGameLine } from '../../adapters/launcher/gameLines.ts';
import { LIMITS } from '../../protocol/messages/limits.ts';
import { T0, STEP, setup, tick, started, echoOwn, LUA_FLAVOURS, useLua, pausedAtT0 } from './support/modScenario.ts';
import type { SessionFolder } from './support/sessionFolder.ts';

/** The payloads of `kind` this game wrote, each checked as the launcher checks a game's line. */
function checkedLines(s: SessionFolder, kind: 'ReplayFailed' | 'Chat'): Record<string, unknown>[] {
  const lines = s.outOf(kind);
  for (const payload of lines) {
    const checked = checkGameLine(kind, payload);
    expect(checked.ok, JSON.stringify(checked)).toBe(true);
  }
  return lines;
}

const LONG_WHY = 'the segment is gone '.repeat(15).trim(); // 299 bytes: the longest why a BuildVeto carries

describe.each(LUA_FLAVOURS)('mod in Lua %s: ReplayFailed and vetoes in words', (lua) => {
  useLua(lua);

  it('a relayed veto of a peer’s build this game had applied: ReplayFailed once, within the schema, no chat, no second verdict', async () => {
    const { s, g } = await setup(1);
    g.init();
    s.send('Session', started);
    tick(g, 20);
    s.send('Action', { stamp: T0 + 2 * STEP, seq: 3, body: { tag: 'b' }, from: 2, allowed: true, category: 'build' });
    for (let i = 0; i < 10; i++) tick(g, 120, 2);
    expect(g.engine().applied).toEqual([{ t: T0 + 2 * STEP, cmd: { tag: 'b' } }]);
    expect(s.outOf('ReplayFailed')).toEqual([]);
    s.send('BuildVeto', { seq: 3, owner: 2, why: LONG_WHY, from: 3, name: 'Carol' });
    tick(g, 20);
    s.send('BuildVeto', { seq: 3, owner: 2, why: 'again', from: 0, name: 'host', host: true });
    tick(g, 20);
    const failed = checkedLines(s, 'ReplayFailed');
    expect(failed).toHaveLength(1);
    const detail = String(failed[0]!.detail);
    expect(detail).toContain('build 2:3 vetoed by Carol');
    expect(detail).toContain('after this game had applied it: it exists on this game only');
    expect([...detail].length).toBeLessThanOrEqual(LIMITS.detailChars);
    expect(s.outOf('Chat')).toEqual([]); // the originator announces it, not this game
    expect(s.outOf('ActionRefused')).toEqual([{ seq: 3, from: 2, applied: true }]);
    expect(s.modLog()).toContain('REPLAY FAILED');
  });

  it('the originator’s own build vetoed after it was applied: the chat says it exists on their game only, ReplayFailed asks for the repair', async () => {
    const { s, g } = await setup(1, undefined);
    g.init();
    s.send('Session', started);
    tick(g, 20);
    expect(g.command({ tag: 'mine' }, 'build')).toBe(true);
    tick(g, 20);
    echoOwn(s, 1);
    for (let i = 0; i < 10; i++) tick(g, 120, 2);
    expect(g.engine().applied.map((a) => a.cmd.tag)).toEqual(['mine']);
    s.send('BuildVeto', { seq: 1, owner: 1, why: 'segment gone', from: 2, name: 'Bob' });
    tick(g, 20);
    s.send('BuildVeto', { seq: 1, owner: 1, why: 'segment gone', from: 3, name: 'Carol' });
    tick(g, 20);
    expect(checkedLines(s, 'ReplayFailed')).toEqual([
      { detail: 'own build 1:1 vetoed by Bob (segment gone) after this game had applied it: it exists on this game only' },
    ]);
    expect(checkedLines(s, 'Chat')).toEqual([
      { text: '[FeverLink3] the build 1:1 of game1 was vetoed by Bob (segment gone) after it was applied: it exists on their game only; the games will be synchronised' },
    ]);
    expect(g.engine().notes.filter((note) => note.includes('exists on their game only'))).toHaveLength(1);
    // its verdict stays `applied`: no refusal follows the veto
    expect(s.outOf('ActionRefused')).toEqual([{ seq: 1, from: 1, applied: true }]);
  });

  it('the originator’s held build vetoed in the grace: the chat says cancelled on every game, once, and no repair is asked', async () => {
    const { s, g } = await pausedAtT0(1);
    expect(g.run(`return feverlink3.command({tag = 'c'}, 'build', true)`)).toBe(true);
    tick(g, 20);
    s.send('BuildVeto', { seq: 1, owner: 1, why: 'segment gone', from: 2, name: 'Bob' });
    tick(g, 20);
    s.send('BuildVeto', { seq: 1, owner: 1, why: 'segment gone', from: 0, name: 'host', host: true });
    tick(g, 20);
    expect(checkedLines(s, 'Chat')).toEqual([
      { text: '[FeverLink3] the build 1:1 of game1 was vetoed by Bob (segment gone): cancelled on every game' },
    ]);
    expect(s.outOf('ReplayFailed')).toEqual([]);
    expect(s.outOf('ActionRefused')).toEqual([{ seq: 1, from: 1, class: 'module', detail: 'vetoed by Bob: segment gone' }]);
  });

  it('a command it cannot carry in a started session is applied on this game only: ReplayFailed once per state', async () => {
    const { s, g } = await setup(1);
    g.init();
    tick(g, 20);
    // in the lobby the worlds are not compared yet: nothing to repair
    expect(g.run(`return feverlink3.command({f = function() end}, 'build')`)).toBe(false);
    tick(g, 20);
    expect(s.outOf('ReplayFailed')).toEqual([]);
    s.send('Session', started);
    tick(g, 20);
    expect(g.run(`return feverlink3.command({f = function() end}, 'build')`)).toBe(false);
    expect(g.run(`return feverlink3.command({f = function() end}, 'build')`)).toBe(false);
    tick(g, 20);
    const failed = checkedLines(s, 'ReplayFailed');
    expect(failed).toHaveLength(1);
    expect(String(failed[0]!.detail)).toMatch(/^a command of this game could not be carried \(.+\): applied on this game only$/);
  });
});
