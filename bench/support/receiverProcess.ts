// The bench side of a receiver process (bench/support/relayReceiver.ts): forks it with `node --import tsx` and an
// IPC channel, and calls it request by request. LocalReceiver is the same receiver in the bench's own process.
import { fork, type ChildProcess } from 'node:child_process';
import { resolve } from 'node:path';
import { receiverHandler, type ReceiverHandler } from './receiverHandler.ts';
import type { RoundCounts } from './relayPeer.ts';

const SCRIPT = resolve(import.meta.dirname, 'relayReceiver.ts');

type Host = { host: string };
/** What the bench asks a receiver (`host` names which of its sessions). */
export type ReceiverRequest = { id: number } & (
  | ({ op: 'join'; port: number; keyHex: string; name: string; lean: boolean; clockMs: number } & Host)
  | ({ op: 'hello' } & Host)
  | ({ op: 'status' } & Host)
  | ({ op: 'round'; count: number; perSecond: number; target: number; expect: number; timeoutMs: number; window: number } & Host)
  | ({ op: 'leave' } & Host)
  | { op: 'close' }
);
type Op = ReceiverRequest['op'];
type Args<O extends Op> = Omit<Extract<ReceiverRequest, { op: O }>, 'id' | 'op'>;

export type ReceiverReply = { id: number; ok: true; value: unknown } | { id: number; ok: false; error: string };

export interface ReceiverStatus {
  peers: number[];
  started: boolean;
  ended?: string;
  problems: string[];
  vetoReasons: Record<string, number>;
}

interface Results {
  join: { you: number };
  hello: object;
  status: ReceiverStatus;
  round: RoundCounts;
  leave: object;
  close: object;
}

/** A receiver the bench calls: in a process of its own, or in the bench's. */
export interface Receiver {
  readonly name: string;
  readonly up: Promise<void>;
  call<O extends Op>(op: O, args: Args<O>): Promise<Results[O]>;
  stop(): Promise<void>;
}

export class ReceiverProcess implements Receiver {
  readonly name: string;
  readonly child: ChildProcess;
  readonly up: Promise<void>;
  private next = 1;
  private readonly pending = new Map<number, { resolve(v: unknown): void; reject(e: Error): void }>();

  constructor(name: string) {
    this.name = name;
    this.child = fork(SCRIPT, [], { execArgv: ['--import', 'tsx'], stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
    this.up = new Promise<void>((resolveUp, rejectUp) => {
      this.pending.set(0, { resolve: () => resolveUp(), reject: rejectUp });
    });
    this.child.on('message', (raw) => {
      const reply = raw as ReceiverReply;
      const waiter = this.pending.get(reply.id);
      if (!waiter) return;
      this.pending.delete(reply.id);
      if (reply.ok) waiter.resolve(reply.value);
      else waiter.reject(new Error(`${this.name}: ${reply.error}`));
    });
    this.child.once('exit', (code, signal) => {
      for (const waiter of this.pending.values()) waiter.reject(new Error(`${this.name} exited (${code ?? signal})`));
      this.pending.clear();
    });
  }

  call<O extends Op>(op: O, args: Args<O>): Promise<Results[O]> {
    const id = this.next++;
    return new Promise<Results[O]>((resolveCall, rejectCall) => {
      this.pending.set(id, { resolve: (v) => resolveCall(v as Results[O]), reject: rejectCall });
      this.child.send({ id, op, ...args });
    });
  }

  /** Asks it to leave every session and exit; kills it if it has not within `graceMs`. */
  async stop(graceMs = 3000): Promise<void> {
    if (this.child.exitCode !== null || this.child.signalCode !== null) return;
    const exited = new Promise<void>((done) => this.child.once('exit', () => done()));
    this.call('close', {}).catch(() => undefined);
    const timer = setTimeout(() => this.child.kill('SIGKILL'), graceMs);
    await exited;
    clearTimeout(timer);
  }
}

/**
 * A receiver in the bench's own process: the capacity run's lean players cost little each, and 7 more processes
 * would take the cores the host needs (bench/hostRelay.bench.ts).
 */
export class LocalReceiver implements Receiver {
  readonly name: string;
  readonly up = Promise.resolve();
  private readonly handle: ReceiverHandler = receiverHandler();

  constructor(name: string) {
    this.name = name;
  }

  call<O extends Op>(op: O, args: Args<O>): Promise<Results[O]> {
    return this.handle({ id: 0, op, ...args } as ReceiverRequest) as Promise<Results[O]>;
  }

  async stop(): Promise<void> {
    await this.handle({ id: 0, op: 'close' });
  }
}
