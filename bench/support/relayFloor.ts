// The floor of the host-relay bench, measured in the bench process in the same run: what relaying one Action cannot
// cost less than, whatever the host is made of: one AES-256-GCM open of the frame as a player sealed it, one JSON
// parse of its payload, one JSON encode of the payload as relayed (the host's fields added) and one seal of it
// (protocol/seal.ts Sealer/Opener over adapters/crypto/nodeCrypto.ts). No framing, schema, session, lockstep,
// socket writes or trace: the ratio host / floor says how much of the host's time goes to all of that.
import { randomBytes } from 'node:crypto';
import { nodeCrypto } from '../../adapters/crypto/nodeCrypto.ts';
import { FrameError, decodeWireFrame, type Frame } from '../../protocol/frame.ts';
import { Kind } from '../../protocol/messages/index.ts';
import { Opener, Sealer } from '../../protocol/seal.ts';
import { benchAction } from './relayPeer.ts';

/** Frames sealed beforehand for one sample (the sender's seal is not the host's cost). */
const FRAMES = 20_000;

/** CPU µs per relayed action of the floor, one sample (`FRAMES` actions). */
export function floorSample(): number {
  const key = nodeCrypto.aesGcm(randomBytes(32));
  const inbound = new Sealer(key, 3);
  const encoder = new TextEncoder();
  const decoder = new TextDecoder();
  const frames: Frame[] = [];
  for (let i = 0; i < FRAMES; i++) {
    const frame = decodeWireFrame(inbound.seal(Kind.Action, encoder.encode(JSON.stringify(benchAction(i + 1, 10_000 + i)))));
    if (frame instanceof FrameError) throw new Error(`floor: ${frame.message}`);
    frames.push(frame);
  }
  const opener = new Opener(key);
  const relay = new Sealer(key, 0);
  const scratch = new Uint8Array(64 * 1024);
  let check = 0;
  const cpu = process.cpuUsage();
  for (const frame of frames) {
    const opened = opener.open(frame);
    if (!opened.ok) throw new Error(`floor: open failed (${opened.reason})`);
    const payload = JSON.parse(decoder.decode(opened.payload)) as Record<string, unknown>;
    payload.from = 3;
    payload.allowed = true;
    const { written } = encoder.encodeInto(JSON.stringify(payload), scratch);
    check += relay.seal(Kind.Action, scratch.subarray(0, written)).length;
  }
  const used = process.cpuUsage(cpu);
  if (check === 0) throw new Error('floor: nothing sealed');
  return (used.user + used.system) / FRAMES;
}
