// A payload measured before it is sent is encoded once (protocol/messages/codec.ts `measured`, size.ts
// payloadByteLength): the encoding right after the measure of the same object reuses its text; any other encoding
// takes the slot, so a later one always writes the object as it is then.
import { describe, expect, it, vi } from 'vitest';
import { SCHEMAS, payloadByteLength, payloadToJson } from '../../protocol/messages/index.ts';
import type { Payloads } from '../../protocol/messages/index.ts';

const action = (seq: number): Payloads['Action'] => ({ seq, stamp: 10_500, category: 'build', body: { op: 'build', x: seq } });

describe('measured payloads', () => {
  it('writes a measured payload once and gives the same text as an unmeasured one', () => {
    const spy = vi.spyOn(SCHEMAS.Action, 'toJson');
    try {
      const payload = action(1);
      const bytes = payloadByteLength('Action', payload);
      const text = payloadToJson('Action', payload);
      expect(spy).toHaveBeenCalledTimes(1);
      expect(new TextEncoder().encode(text).length).toBe(bytes);
      expect(text).toBe(payloadToJson('Action', action(1)));
    } finally {
      spy.mockRestore();
    }
  });

  it('uses the kept text for the next encoding of that object only', () => {
    const a = action(1);
    payloadByteLength('Action', a);
    payloadToJson('Action', action(2)); // another payload takes the slot
    a.seq = 7; // (payloads are never changed; here only to see which text comes back)
    expect(JSON.parse(payloadToJson('Action', a)).seq).toBe(7);

    const b = action(3);
    payloadByteLength('Action', b);
    expect(JSON.parse(payloadToJson('Action', b)).seq).toBe(3); // the kept text, used once
    b.seq = 8;
    expect(JSON.parse(payloadToJson('Action', b)).seq).toBe(8); // written anew
  });

  it('does not take the text of one kind for another', () => {
    const payload = { text: 'hi', from: 1, name: 'ann' } as Payloads['Chat'];
    payloadByteLength('Chat', payload);
    const chat = JSON.stringify(SCHEMAS.Chat.toJson(payload));
    expect(payloadToJson('Action', payload as never)).not.toBe(chat);
  });
});
