// One valid payload per kind, as docs/PROTOCOL.md ("Messages") shows them (spec: "Who may send what").
// Used by the tests (every example must round-trip) and handy for other layers' tests and the inspector.

import type { KindName } from './kinds.ts';
import type { Payloads } from './table.ts';

const bytesOf = (length: number, start = 0): Uint8Array => Uint8Array.from({ length }, (_, i) => (start + i) & 255);
const SHA = '9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08';

/** A valid example of every kind's payload. */
export const EXAMPLES: { readonly [K in KindName]: Payloads[K] } = {
  Challenge: { nonce: bytesOf(16), protocol: 1, version: '0.1' },
  Join: {
    name: 'Ada',
    version: '0.1',
    proof: bytesOf(32, 100),
    resume: { id: 3, mac: bytesOf(32, 7), last: 41 },
    caps: ['resync-source-1'],
    mods: [{ id: 'urbangames_vehicles', version: '1.2' }],
  },
  Reject: {
    reason: 'mods',
    detail: 'missing urbangames_vehicles',
    mods: {
      missing: [{ id: 'urbangames_vehicles', version: '1.2' }],
      extra: [],
      differ: [{ id: 'x', host: '2', player: '1' }],
    },
  },
  Welcome: {
    you: 3,
    hostName: 'Host',
    version: '0.1',
    players: [
      { id: 0, name: 'Host', ready: true },
      { id: 3, name: 'Ada', ready: false },
    ],
    session: { started: true, speed: 1, lead: 4 },
    resume: { token: bytesOf(16, 50), epoch: 0 },
    modsChecked: true,
  },
  Session: {
    started: true,
    speed: 0,
    pauseAt: 10_341_800,
    lead: 4,
    resync: { id: 2, state: 'Loading', reason: 'new player' },
    modWarnings: [{ id: 3, name: 'Ada', missing: ['urbangames_vehicles'] }],
    stalled: [2],
    loading: [3],
  },
  PeerClock: {
    from: 2,
    t: 4_294_967_496,
    ahead: 4,
    safe: 4_294_968_296,
    pause: 3,
    stalled: true,
    hop: { g: 1.7e12, h: 1.7e12 + 3.25 },
  },
  PlayerJoined: { player: { id: 4, name: 'Ada#4', ready: false } },
  PlayerLeft: { id: 4, name: 'Ada#4', away: true },
  ChecksumRequest: { n: 17, at: 10_342_400, paused: false, full: true, spread: 2, chunk: 200, detail: false },
  Authority: { n: 17, values: { money: 1_234_567.5, loan: 0 } },
  ResyncSave: { id: 2, name: 'feverlink3-resync-2' },
  ResyncChunk: { id: 2, index: 0, count: 3, sha256: SHA, data: bytesOf(1000) },
  ResyncLoad: { id: 2, name: 'feverlink3-resync-2', sha256: SHA },
  Permissions: { build: 'everyone', bulldoze: 'hostOnly', spend: { only: [1, 3] }, speed: 'everyone' },
  Ping: { n: 9, rtt: { '0': 0, '3': 41.5 }, off: { '3': -12.25 }, ack: 1234 },
  Kicked: { reason: 'kicked', detail: 'by the host' },
  ReportAsk: { id: 5, report: 1, by: 3, byName: 'Ada', maxBytes: 8 * 1024 * 1024, salt: 'c2FsdA' },
  ReportBundle: { id: 6, index: 1, count: 2, sha256: SHA, data: bytesOf(10) },
  ReportBusy: { id: 1, byName: 'Ada' },
  Hello: { time: 10_342_400, save: 'feverlink3-resync-2' },
  Clock: {
    t: 10_342_400,
    speed: 1,
    ahead: 4,
    need: 10_343_400,
    safe: 10_343_200,
    pause: 3,
    stop: false,
    hop: { g: 1.7e12 },
  },
  SpeedRequest: { speed: 4 },
  ChecksumReport: {
    n: 17,
    time: 10_342_400,
    parts: { money: 'a1b2', 'townBuildings:12': 123456789, freeq: '7|1024:99|2048:17|3072:5' },
    authority: { money: 1_234_567.5 },
    notReady: ['persons'],
    cost: { entityNs: 812.5, stepMaxUs: 6000, chunk: 200 },
  },
  SaveDone: { id: 2, ok: true, mods: ['urbangames_vehicles'] },
  ReplayFailed: { detail: 'build 3:17: no such segment' },
  ActionRefused: { seq: 17, from: 3, detail: 'not enough money', class: 'company', partial: false },
  Pong: { n: 9, w: 1_700_000_000_123.5 },
  Leave: {},
  ResyncUpload: { id: 2, index: 2, count: 3, sha256: SHA, data: bytesOf(5) },
  ReportRequest: { note: 'the bridge vanished' },
  ReportPart: { id: 5, index: 0, count: 1, sha256: SHA, data: bytesOf(3) },
  Action: {
    stamp: 10_343_200,
    seq: 17,
    body: { type: 'street', nodes: [[1.5, -2, 0]], held: true, note: null },
    category: 'build',
    from: 3,
    allowed: true,
    hop: { g: 1.7e12, l: 1.7e12 + 1 },
  },
  Chat: { text: 'hello 👋', from: 3, name: 'Ada', level: 'info' },
  BuildVeto: { seq: 17, owner: 3, why: 'segment 12 is gone', from: 2, name: 'Bob', host: false, late: false },
  BuildCommit: { seq: 18, owner: 3, stamp: 10_343_400, from: 3 },
};
