// Starting the game beside the launcher: `--game-dir` starts the Transport Fever 3 executable found in that folder
// with the session environment (a TEST DOUBLE script stands in for the game, which cannot run here); `--game`
// choices parse; a folder without the game is a clear error.
import { chmodSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { gameChoice, startGame } from '../../../adapters/launcher/gameProcess.ts';
import { tempFolders } from '../../support/tempFolders.ts';

const temp = tempFolders('fl3-game-');

describe('starting the game', () => {
  it('starts Transport Fever 3 from --game-dir with FEVERLINK3_SESSION_DIR set (test double executable)', async () => {
    const gameDir = temp();
    const sessionDir = temp();
    const script = join(gameDir, 'TransportFever3.sh');
    writeFileSync(script, `#!/bin/sh\necho "$FEVERLINK3_SESSION_DIR" > "$FEVERLINK3_SESSION_DIR/seen-by-game.txt"\n`);
    chmodSync(script, 0o755);
    const game = startGame({ kind: 'dir', dir: gameDir }, sessionDir, () => {});
    expect(game).toBeDefined();
    expect(await game!.exited).toBe(0);
    expect(readFileSync(join(sessionDir, 'seen-by-game.txt'), 'utf8').trim()).toBe(sessionDir);
  });

  it('says which executables it looked for when the folder has none', () => {
    expect(() => startGame({ kind: 'dir', dir: temp() }, temp(), () => {})).toThrow(/TransportFever3/);
  });

  it('parses --game sim|none and --game-dir; refuses anything else', () => {
    expect(gameChoice({}, 7)).toEqual({ kind: 'sim', sim: { botSeed: 7 } });
    expect(gameChoice({ game: 'none' }, 7)).toEqual({ kind: 'none' });
    expect(gameChoice({ 'game-dir': '/games/tf3' }, 7)).toEqual({ kind: 'dir', dir: '/games/tf3' });
    expect(gameChoice({ game: 'sim', bots: '2', 'bot-rate': '90', throttle: '0.5' }, 1)).toEqual({
      kind: 'sim',
      sim: { botSeed: 1, bots: 2, botRate: 90, throttle: 0.5 },
    });
    expect(gameChoice({ game: 'tf2' }, 7)).toMatch(/--game/);
    expect(startGame({ kind: 'none' }, temp(), () => {})).toBeUndefined();
  });
});
