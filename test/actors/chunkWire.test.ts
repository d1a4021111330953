// The chunk kinds' way in through the session's Base64 port (actors/chunkWire.ts): the same messages and the same
// refusals as the pure path (actors/wire.ts openMessage), for good and bad chunks and for other kinds.
import { describe, expect, it } from 'vitest';
import { openWith } from '../../actors/chunkWire.ts';
import { openMessage, sealedFrame } from '../../actors/wire.ts';
import { nodeBase64 } from '../../adapters/base64/nodeBase64.ts';
import { nodeCrypto } from '../../adapters/crypto/nodeCrypto.ts';
import { FrameDecoder } from '../../protocol/frame.ts';
import { Kind } from '../../protocol/messages/index.ts';
import { Opener, Sealer } from '../../protocol/seal.ts';
import { utf8 } from '../../protocol/bytes.ts';

const key = new Uint8Array(32).fill(3);
const frameOf = (bytes: Uint8Array) => new FrameDecoder().push(bytes)[0]!;

describe('chunk kinds decoded through the Base64 port', () => {
  it('gives what the pure path gives, for a good chunk, a bad one, and another kind', () => {
    const sealer = new Sealer(nodeCrypto.aesGcm(key), 0);
    const data = Uint8Array.from({ length: 3000 }, (_, i) => (i * 7) & 255);
    const good = sealedFrame(sealer, 'ResyncChunk', { id: 1, index: 0, count: 1, sha256: 'ab'.repeat(32), data })!;
    const badJson = `{"id":1,"index":0,"count":1,"sha256":"${'ab'.repeat(32)}","data":"@@@@"}`;
    const bad = sealer.seal(Kind.ResyncChunk, utf8(badJson));
    const chat = sealedFrame(sealer, 'Chat', { text: 'hello' })!;
    for (const bytes of [good, bad, chat]) {
      const fast = openWith(new Opener(nodeCrypto.aesGcm(key)), frameOf(bytes), nodeBase64);
      const pure = openMessage(new Opener(nodeCrypto.aesGcm(key)), frameOf(bytes));
      expect(fast.ok).toBe(pure.ok);
      if (fast.ok && pure.ok) expect(fast.message).toEqual(pure.message);
      if (!fast.ok && !pure.ok) expect(fast.why).toBe(pure.why);
    }
    const opened = openWith(new Opener(nodeCrypto.aesGcm(key)), frameOf(good), nodeBase64);
    expect(opened.ok && opened.message.kind === 'ResyncChunk' && Buffer.from(opened.message.payload.data).equals(Buffer.from(data))).toBe(true);
    expect(openWith(new Opener(nodeCrypto.aesGcm(key)), frameOf(bad), nodeBase64)).toMatchObject({ ok: false, why: 'not-decoded' });
  });
});
