// The host's write side alone (adapters/transport/connection.ts): what writing relayed frames to 8 receivers costs the
// host in CPU, through TcpConnection (small frames of one event-loop turn coalesced into one write per connection)
// against raw sockets written one frame per write (`socket.write`, noDelay: the uncoalesced path), measured in the
// same run, rounds interleaved. The receivers are one child process that reads and drops. A "read" is what the host
// does for one chunk read from a player: each of its Actions written to all 8 connections; between two reads of one
// turn the nextTick queue runs (as between two sockets' callbacks); a turn ends with setImmediate. Cases: actions per
// read (1: a player sending one at a time; 4: the relay bench's players, ~3.6 per 4 ms) × reads per turn (1: a host
// that is mostly idle, as in the relay bench; 3: a busy host that finds several sockets readable at once).
// Prints µs of this process's CPU per action (8 frames of 230 bytes) and the ratio; asserts nothing.
import { spawn } from 'node:child_process';
import { connect, type Socket } from 'node:net';
import type { Connection } from '../actors/ports.ts';
import { connectTcp } from '../adapters/transport/tcp.ts';

const RECEIVERS = 8;
const FRAME_BYTES = 230;
const READS_PER_ROUND = 2000;
const PAIRS = 7;
const CASES: { actionsPerRead: number; readsPerTurn: number }[] = [
  { actionsPerRead: 1, readsPerTurn: 1 },
  { actionsPerRead: 4, readsPerTurn: 1 },
  { actionsPerRead: 1, readsPerTurn: 3 },
  { actionsPerRead: 4, readsPerTurn: 3 },
];

const SINK = `
const { createServer } = require('node:net');
const server = createServer((c) => { c.on('data', () => {}); c.on('error', () => {}); });
server.listen(0, '127.0.0.1', () => process.send(server.address().port));
process.on('disconnect', () => process.exit(0));
`;

type Writer = (frame: Uint8Array) => void;

const median = (values: readonly number[]): number => {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
};
const nextTick = () => new Promise<void>((resolve) => process.nextTick(resolve));
const endOfTurn = () => new Promise<void>((resolve) => setImmediate(resolve));

/** µs of CPU per action for `reads` reads of one case written through `writers`. */
async function round(writers: readonly Writer[], c: (typeof CASES)[number], reads: number): Promise<number> {
  const frame = new Uint8Array(FRAME_BYTES).fill(7);
  const turns = Math.ceil(reads / c.readsPerTurn);
  const cpu = process.cpuUsage();
  for (let turn = 0; turn < turns; turn++) {
    for (let read = 0; read < c.readsPerTurn; read++) {
      for (let a = 0; a < c.actionsPerRead; a++) for (const write of writers) write(frame);
      await nextTick();
    }
    await endOfTurn();
    // Let the kernel and the sink take it: the queue stays near empty, as at a receiver that keeps up.
    await endOfTurn();
  }
  const used = process.cpuUsage(cpu);
  return (used.user + used.system) / (turns * c.readsPerTurn * c.actionsPerRead);
}

export async function run(): Promise<void> {
  const sink = spawn(process.execPath, ['-e', SINK], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  const port = await new Promise<number>((resolve) => sink.once('message', (m) => resolve(m as number)));
  const conns: Connection[] = [];
  const raws: Socket[] = [];
  try {
    for (let i = 0; i < RECEIVERS; i++) conns.push(await connectTcp({ host: '127.0.0.1', port }));
    for (let i = 0; i < RECEIVERS; i++) {
      raws.push(
        await new Promise<Socket>((resolve, reject) => {
          const socket = connect({ host: '127.0.0.1', port, noDelay: true }, () => resolve(socket));
          socket.once('error', reject);
        }),
      );
    }
    const coalesced: Writer[] = conns.map((conn) => (frame) => conn.write(frame));
    const raw: Writer[] = raws.map((socket) => (frame) => void socket.write(frame));
    console.log(
      `${RECEIVERS} receivers (one child process reading and dropping), ${FRAME_BYTES}-byte frames; µs of CPU per action` +
        ` (${RECEIVERS} frames), median of ${PAIRS} interleaved rounds of ${READS_PER_ROUND} reads`,
    );
    for (const c of CASES) {
      await round(coalesced, c, 200);
      await round(raw, c, 200);
      const mine: number[] = [];
      const theirs: number[] = [];
      for (let pair = 0; pair < PAIRS; pair++) {
        mine.push(await round(coalesced, c, READS_PER_ROUND));
        theirs.push(await round(raw, c, READS_PER_ROUND));
      }
      const ratios = mine.map((m, i) => m / theirs[i]!);
      console.log(
        `  ${c.actionsPerRead} action(s)/read, ${c.readsPerTurn} read(s)/turn:` +
          ` TcpConnection ${median(mine).toFixed(2).padStart(6)} µs, one write per frame ${median(theirs).toFixed(2).padStart(6)} µs,` +
          ` ratio ${median(ratios).toFixed(2)} (${Math.min(...ratios).toFixed(2)}–${Math.max(...ratios).toFixed(2)})`,
      );
    }
  } finally {
    for (const conn of conns) conn.close('bench-done');
    for (const socket of raws) socket.destroy();
    sink.disconnect();
    sink.kill();
  }
}
