// A host restarted in the same session folder seals under a new key (reliability-tests.md C10, SP 800-38D §9.1):
// every start draws a fresh secret, so its counters, which start again at 1, never meet a (key, nonce) of an earlier
// life. Three restarts of the real launcher on 127.0.0.1.
import { describe, expect, it } from 'vitest';
import { nodeCrypto } from '../../../adapters/crypto/nodeCrypto.ts';
import { launchHost } from '../../../adapters/launcher/hostLauncher.ts';
import { deriveSessionKey } from '../../../protocol/keys.ts';
import { tempFolders } from '../../support/tempFolders.ts';

const tempDir = tempFolders('fl3-restart-');
const hex = (bytes: Uint8Array) => Buffer.from(bytes).toString('hex');

describe('host restart', () => {
  it('draws a new secret, and so a new key, at every start in the same folder', async () => {
    const dir = tempDir();
    const secrets: string[] = [];
    const keys: string[] = [];
    for (let life = 0; life < 4; life++) {
      const host = await launchHost({ listen: { host: '127.0.0.1', port: 0 }, name: 'host', maxPlayers: 8, dir, game: { kind: 'none' }, log: () => {} });
      try {
        secrets.push(hex(host.secret));
        keys.push(hex(await deriveSessionKey(nodeCrypto, host.secret, undefined)));
      } finally {
        await host.stop('shutdown');
      }
    }
    expect(new Set(secrets).size).toBe(4);
    expect(new Set(keys).size).toBe(4);
  });
});
