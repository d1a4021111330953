// The host's launcher ends when its session ends itself (HostSession's `ended` notice): here the session key's budget
// is spent (reliability-tests.md C11), so the launcher's `failed` resolves with the reason the players were given, and
// the CLI then stops with that line. The real launcher on 127.0.0.1 with a real player; the budget is shrunk so that
// a few chat lines spend it, and the host's own ping round (every 2 s on the real clock) ends the session.
import { describe, expect, it } from 'vitest';
import { KEY_BUDGET_DETAIL } from '../../../actors/host/hostSession.ts';
import { nodeCrypto } from '../../../adapters/crypto/nodeCrypto.ts';
import { launchHost } from '../../../adapters/launcher/hostLauncher.ts';
import { deriveSessionKey } from '../../../protocol/keys.ts';
import { joinedPlayer, waitFor } from '../../support/session.ts';
import { tempFolders } from '../../support/tempFolders.ts';

const tempDir = tempFolders('fl3-ended-');

describe('host launcher: the session ends itself', () => {
  it('resolves `failed` with the reason when the key budget is spent, and the player is told the same', async () => {
    const host = await launchHost({
      listen: { host: '127.0.0.1', port: 0 },
      name: 'host',
      maxPlayers: 8,
      dir: tempDir(),
      game: { kind: 'none' },
      log: () => {},
      keyBudgetBytes: 3000,
    });
    let failedWith: string | undefined;
    void host.failed.then((reason) => (failedWith = reason));
    try {
      const key = await deriveSessionKey(nodeCrypto, host.secret, undefined);
      const alice = await joinedPlayer(host.listener.port, 'alice', { key });
      for (let i = 0; i < 6; i++) alice.player.chat('x'.repeat(500)); // 3000 bytes opened by the host, and more sealed
      await waitFor(() => failedWith !== undefined, 8000, 'the launcher to fail');
      expect(failedWith).toBe(KEY_BUDGET_DETAIL);
      await waitFor(() => alice.ended(), 5000, 'alice to be told');
      expect(alice.ended()).toEqual({ type: 'ended', reason: 'shutdown', detail: KEY_BUDGET_DETAIL });
    } finally {
      await host.stop('shutdown');
    }
  });
});
