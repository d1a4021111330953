// The kind table and who may send what (spec: wire-protocol.txt "Who may send what", "Handshake").
import { describe, expect, it } from 'vitest';
import { Kind, KIND_NAMES, isKindName, isSealedKind, kindName, playerMaySend } from '../../protocol/messages/index.ts';

describe('message kinds', () => {
  it('has the spec codes, each once', () => {
    expect(Kind).toEqual({
      Challenge: 1, Join: 2, Reject: 3, Welcome: 10, Session: 11, PeerClock: 12, PlayerJoined: 13, PlayerLeft: 14,
      ChecksumRequest: 15, Authority: 16, ResyncSave: 17, ResyncChunk: 18, ResyncLoad: 19, Permissions: 20, Ping: 21,
      Kicked: 22, ReportAsk: 23, ReportBundle: 24, ReportBusy: 25, Hello: 30, Clock: 31, SpeedRequest: 32,
      ChecksumReport: 33, SaveDone: 34, ReplayFailed: 35, ActionRefused: 36, Pong: 37, Leave: 38, ResyncUpload: 39,
      ReportRequest: 40, ReportPart: 41, Action: 50, Chat: 51, BuildVeto: 52, BuildCommit: 53,
    });
    const codes = Object.values(Kind);
    expect(new Set(codes).size).toBe(codes.length);
    expect(KIND_NAMES).toHaveLength(35);
  });

  it('names every code and nothing else', () => {
    for (const name of KIND_NAMES) expect(kindName(Kind[name])).toBe(name);
    const known = new Set<number>(Object.values(Kind));
    for (let code = -1; code <= 256; code++) if (!known.has(code)) expect(kindName(code)).toBeUndefined();
    expect(kindName(1.5)).toBeUndefined();
    expect(kindName(NaN)).toBeUndefined();
  });

  it('recognises kind names as own keys only', () => {
    expect(isKindName('Chat')).toBe(true);
    for (const name of ['constructor', '__proto__', 'toString', 'hasOwnProperty', 'chat', '', 51]) {
      expect(isKindName(name)).toBe(false);
    }
  });

  it('lets a player send exactly 30..41 and 50..53', () => {
    const allowed: number[] = [];
    for (let code = -1; code <= 300; code++) if (playerMaySend(code)) allowed.push(code);
    expect(allowed).toEqual([30, 31, 32, 33, 34, 35, 36, 37, 38, 39, 40, 41, 50, 51, 52, 53]);
    expect(playerMaySend(Kind.Permissions)).toBe(false);
    expect(playerMaySend(Kind.Kicked)).toBe(false);
    expect(playerMaySend(30.5)).toBe(false);
  });

  it('seals everything but the three handshake kinds', () => {
    const unsealed: number[] = [];
    for (let code = 0; code <= 255; code++) if (!isSealedKind(code)) unsealed.push(code);
    expect(unsealed).toEqual([1, 2, 3]);
    for (const name of KIND_NAMES) {
      expect(isSealedKind(Kind[name])).toBe(!['Challenge', 'Join', 'Reject'].includes(name));
    }
  });
});
