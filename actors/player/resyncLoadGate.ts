// The player's gate in front of its game for a resync save (spec "Receiving side"): a ResyncLoad reaches the game
// only for a save received intact (the `saves` port checks its last chunk's SHA-256, which may still run); what
// arrives for the game meanwhile waits and follows it, in order, and a ResyncLoad whose save did not arrive intact
// is dropped (logged). The PlayerSession (actors/player/playerSession.ts) hands every game message through here.
import type { Message } from '../wire.ts';
import type { PlayerPorts } from './playerTypes.ts';

export class ResyncLoadGate {
  private readonly ports: Pick<PlayerPorts, 'saves' | 'log'>;
  /** Gives a message to the game (the session's `game` notice). */
  private readonly toGame: (message: Message) => void;
  /** While a ResyncLoad waits for its save's check: the game's messages that follow it. */
  private gameWaits: Message[] | undefined;

  constructor(ports: Pick<PlayerPorts, 'saves' | 'log'>, toGame: (message: Message) => void) {
    this.ports = ports;
    this.toGame = toGame;
  }

  /**
   * A ResyncLoad reaches the game only for a save received intact (its last chunk's SHA-256 check may still run);
   * what arrives for the game meanwhile waits and follows it, in order.
   */
  resyncLoad(message: Extract<Message, { kind: 'ResyncLoad' }>): void {
    const { id, sha256 } = message.payload;
    if (this.gameWaits) return void this.gameWaits.push(message);
    const received = this.ports.saves?.received(id, sha256) ?? Promise.resolve(undefined);
    this.gameWaits = [];
    const deliver = (path: string | undefined) => {
      const after = this.gameWaits ?? [];
      this.gameWaits = undefined;
      if (path === undefined) this.ports.log({ msg: 'resync load dropped: its save did not arrive intact', id, level: 'warn' });
      else this.toGame(message);
      for (const next of after) {
        if (next.kind === 'ResyncLoad') this.resyncLoad(next);
        else this.forGame(next);
      }
    };
    received.then(deliver, () => deliver(undefined));
  }

  /** Game traffic for the game link, unless a ResyncLoad waits for its save (then after it, in order). */
  forGame(message: Message): void {
    if (this.gameWaits) this.gameWaits.push(message);
    else this.toGame(message);
  }
}
