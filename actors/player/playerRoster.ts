// What the player's window shows of the session (spec "Players and slots", "Ping and round-trip time"): the roster
// as the host's Welcome, PlayerJoined and PlayerLeft describe it (a player that dropped stays listed as away while
// the host holds its slot), and the round trips and our wall-clock offset as the host's last Ping reported them.
// Kept by the PlayerSession (actors/player/playerSession.ts), which routes those messages here.
import type { Payloads } from '../../protocol/messages/index.ts';
import type { RosterRow } from './playerTypes.ts';

export class PlayerRoster {
  private roster = new Map<number, RosterRow>();
  private lastRtt: Record<string, number> = {};
  private lastOffset: number | undefined;

  /** A Welcome (a join or a resume): the players it lists, the away ones as the host marks them. */
  welcomed(players: Payloads['Welcome']['players']): void {
    this.roster = new Map(players.map((p) => [p.id, { id: p.id, name: p.name, ready: p.ready, away: p.away === true }]));
  }

  /** PlayerJoined or PlayerLeft, as the host sent it. */
  take(message: { kind: 'PlayerJoined'; payload: Payloads['PlayerJoined'] } | { kind: 'PlayerLeft'; payload: Payloads['PlayerLeft'] }): void {
    if (message.kind === 'PlayerJoined') this.joined(message.payload.player);
    else this.left(message.payload.id, message.payload.away);
  }

  /** PlayerJoined: a new player, or one back. */
  private joined(p: Payloads['PlayerJoined']['player']): void {
    this.roster.set(p.id, { ...p, away: false });
  }

  /** PlayerLeft: away (its slot held) or gone. */
  private left(id: number, away: boolean | undefined): void {
    const row = this.roster.get(id);
    if (away && row) this.roster.set(id, { ...row, away: true });
    else this.roster.delete(id);
  }

  /** Ping.rtt: every measured round trip, by player id. */
  setRtt(rtt: Record<string, number>): void {
    this.lastRtt = rtt;
  }

  /** Ping.off: our wall-clock offset to the host. */
  setOffset(off: number | undefined): void {
    this.lastOffset = off;
  }

  /** Our round trip and wall-clock offset to the host as the host last reported them (latency stamps rr, ro). */
  clockView(you: number | undefined): { rtt?: number; off?: number } {
    const rtt = you === undefined ? undefined : this.lastRtt[String(you)];
    return { ...(rtt === undefined ? {} : { rtt }), ...(this.lastOffset === undefined ? {} : { off: this.lastOffset }) };
  }

  /** The players by id, each with its round trip when the host reported one. */
  players(): RosterRow[] {
    return [...this.roster.values()]
      .sort((a, b) => a.id - b.id)
      .map((p) => {
        const rtt = this.lastRtt[String(p.id)];
        return rtt === undefined ? p : { ...p, rtt };
      });
  }
}
