// The fabric of one memory network (memorySocket.ts has the sockets, memoryPipe.ts one direction's bytes): it makes
// linked socket pairs, each direction a Pipe with its own seeded jitter, and lets the simulator steer a link (its
// conditions, a partition, a cut). Every delivery goes through its one EventQueue on the injected clock.
import type { Clock, LogFn } from '../../actors/ports.ts';
import { EventQueue } from './memoryEventQueue.ts';
import { mixSeed, resolveConditions, seededRandom, type LinkConditions } from './memoryLinkConditions.ts';
import { Pipe, type DirectionStats } from './memoryPipe.ts';
import { MemorySocket } from './memorySocket.ts';

/** Both directions of one connection, as the simulator steers them. */
export interface MemoryLink {
  readonly id: number;
  /** The connecting end and the accepting end. */
  readonly client: MemorySocket;
  readonly server: MemorySocket;
  /** The conditions client → server and server → client. */
  conditions(): { up: LinkConditions; down: LinkConditions };
  /** Changes both directions (or one); releasing `held` delivers what was kept, in order. */
  set(changes: Partial<LinkConditions>, direction?: 'both' | 'up' | 'down'): void;
  /** Cuts the link: both ends close at once with `reason` (default 'reset'); nothing in flight arrives. */
  cut(reason?: string): void;
  /** The reason it was cut with, once cut. */
  readonly cutReason: string | undefined;
  stats(): { up: DirectionStats; down: DirectionStats };
}

/** The sockets, links and event queue of one memory network. */
export class Fabric {
  readonly clock: Clock;
  readonly log: LogFn;
  readonly events: EventQueue;
  readonly seed: number;
  #nextSocket = 0;
  #nextStream = 0;
  #nextLink = 0;
  #links = new Map<MemorySocket, MemoryLink>();

  constructor(clock: Clock, seed: number, log: LogFn) {
    this.clock = clock;
    this.seed = seed >>> 0;
    this.log = log;
    this.events = new EventQueue(clock, log);
  }

  /**
   * Makes a linked pair: the client end (to hand out once connected) and the server end (its `onSyn` runs when the
   * client's SYN arrives). The SYN is sent at once.
   */
  pair(clientAddress: string, serverAddress: string, up: LinkConditions, down: LinkConditions): MemoryLink {
    const client = new MemorySocket(this, ++this.#nextSocket, clientAddress, serverAddress);
    const server = new MemorySocket(this, ++this.#nextSocket, serverAddress, clientAddress);
    const upPipe = new Pipe(this, client, server, up, seededRandom(mixSeed(this.seed, this.#nextStream++)));
    const downPipe = new Pipe(this, server, client, down, seededRandom(mixSeed(this.seed, this.#nextStream++)));
    client.out = upPipe;
    client.in = downPipe;
    server.out = downPipe;
    server.in = upPipe;
    let cutReason: string | undefined;
    const link: MemoryLink = {
      id: ++this.#nextLink,
      client,
      server,
      conditions: () => ({ up: { ...upPipe.conditions }, down: { ...downPipe.conditions } }),
      set: (changes, direction = 'both') => {
        for (const pipe of direction === 'both' ? [upPipe, downPipe] : direction === 'up' ? [upPipe] : [downPipe]) {
          const wasHeld = pipe.conditions.held;
          pipe.conditions = resolveConditions(pipe.conditions, changes);
          if (!wasHeld && pipe.conditions.held) pipe.hold();
          else if (wasHeld && !pipe.conditions.held) pipe.release();
          else pipe.pump();
        }
      },
      cut: (reason = 'reset') => {
        if (cutReason !== undefined) return;
        cutReason = reason;
        upPipe.drop();
        downPipe.drop();
        const pending = client.onConnect;
        if (pending !== undefined) {
          client.onConnect = undefined;
          pending('refused');
        }
        client.breakWith(reason);
        server.breakWith(reason);
      },
      get cutReason() {
        return cutReason;
      },
      stats: () => ({ up: upPipe.stats(), down: downPipe.stats() }),
    };
    this.#links.set(client, link);
    this.#links.set(server, link);
    upPipe.send({ type: 'syn' });
    return link;
  }

  /** Sends the SYN-ACK (the server accepted at the kernel level). */
  accept(server: MemorySocket): void {
    server.out.send({ type: 'synack' });
  }

  /** Refuses a SYN: RST back (the client's connect fails with ECONNREFUSED). */
  refuse(server: MemorySocket): void {
    server.out.send({ type: 'rst' });
    server.abandon();
  }

  linkOf(socket: MemorySocket): MemoryLink | undefined {
    return this.#links.get(socket);
  }

  /** Every link not yet fully closed, oldest first. */
  links(): MemoryLink[] {
    return [...new Set(this.#links.values())];
  }

  /** A closed end is no longer found; a link is listed until both its ends closed. */
  forget(socket: MemorySocket): void {
    this.#links.delete(socket);
  }
}
