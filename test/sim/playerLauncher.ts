// A player's launcher in the simulated session: it connects to the host from the player's address, joins, opens its
// game's in-memory session folder and bridges it, receives a resync round's save into its game's savegame folder,
// serves as a repair source, and runs the launcher's own reconnect loop after a drop (the plan's `downUntil` keeps
// the host unreachable meanwhile); then its game starts (gameStart.ts).
import { RESYNC_SOURCE_CAPABILITY } from '../../actors/host/resync.ts';
import { PlayerSession } from '../../actors/player/playerSession.ts';
import type { Connection } from '../../actors/ports.ts';
import { openMemoryGameLink } from '../../adapters/fileLink/memoryLink.ts';
import { bridgePlayerGame } from '../../adapters/launcher/gameBridge.ts';
import { ReconnectLoop } from '../../adapters/launcher/reconnect.ts';
import { serveAsRepairSource } from '../../adapters/launcher/repairSource.ts';
import { SaveReceiver } from '../../adapters/saves/saveReceiver.ts';
import { resyncSaveName } from '../../machines/rules/resyncRound.ts';
import { seededRandom } from '../../adapters/transport/memorySocket.ts';
import { KEY } from '../support/session.ts';
import { startGame } from './gameStart.ts';
import type { SimGameSlot } from './session.ts';
import { excuseWritten, HOST_ADDRESS, type SimSession } from './sessionContext.ts';
import { nextRecordOrder } from './simGame.ts';

/** A player: connect, join, open its folder, start its game (false: it could not connect or join in time). */
export async function join(s: SimSession, slot: SimGameSlot): Promise<boolean> {
  const { clock, driver, log } = s;
  const pending = s.net.connect(`${HOST_ADDRESS}:7000`, { localAddress: slot.plan.address, log });
  let conn: Connection | undefined;
  let refused = false;
  pending.then((c) => (conn = c), () => (refused = true));
  if (!(await driver.until(() => conn !== undefined || refused, 20_000)) || conn === undefined) return false;
  // the launcher's resync side: a save is received into its game's savegame folder; it can serve as a repair source
  const saves = s.savesOf(slot);
  const receiver = new SaveReceiver({ dir: saves, clock, log, fileName: resyncSaveName });
  slot.stops.push(() => void receiver.close());
  const player = new PlayerSession(
    { name: slot.plan.name, key: KEY, caps: [RESYNC_SOURCE_CAPABILITY] },
    {
      crypto: s.crypto, clock, wallClock: () => clock.now(), log,
      saves: { accept: (chunk) => receiver.accept(chunk), received: async (id, sha256) => (await receiver.idle(), receiver.loadable(id, sha256)) },
    },
  );
  let ended = false;
  player.on((n) => {
    if (n.type === 'ended') ended = true;
  });
  player.connect(conn);
  if (!(await driver.until(() => player.joined || ended, 20_000)) || !player.joined) return false;
  slot.player = player;
  slot.id = player.you;
  const dir = `/s/${slot.plan.name}`;
  const link = await driver.blocking(() =>
    openMemoryGameLink(s.fs, dir, { name: slot.plan.name, id: slot.id!, role: 'player' }, { clock }),
  );
  slot.stops.push(bridgePlayerGame(player, link, log));
  slot.stops.push(serveAsRepairSource(player, link, saves, clock, log));
  slot.stops.push(reconnectsBy(s, slot, player));
  await startGame(s, slot, link, dir);
  return true;
}

/**
 * The launcher's own reconnect loop (adapters/launcher/reconnect.ts) on the simulated clock: after a drop it dials
 * the host from the player's address; while the plan keeps the host unreachable (`downUntil`) no attempt connects.
 */
function reconnectsBy(s: SimSession, slot: SimGameSlot, player: PlayerSession): () => void {
  const { clock, log } = s;
  const loop = new ReconnectLoop({
    player,
    clock,
    random: seededRandom(s.plan.seed + slot.index),
    log,
    connect: async () => {
      if (clock.now() < (s.downUntil.get(slot) ?? 0)) return undefined;
      const pending = s.net.connect(`${HOST_ADDRESS}:7000`, { localAddress: slot.plan.address, log });
      return pending.catch(() => undefined);
    },
  });
  const off = player.on((n) => {
    if (n.type === 'away') s.away.add(slot);
    if (n.type === 'resumed') {
      s.away.delete(slot);
      s.happened.add(n.caughtUp ? 'resumed' : 'resumedNotCaughtUp');
      slot.resumes += 1;
      // not caught up: it missed messages, so its world is not the session's until a round's load (the host made
      // it an outsider); its log is compared up to where it stood
      if (!n.caughtUp && slot.game) {
        slot.staleT = Math.min(slot.staleT ?? Infinity, slot.game.time());
        slot.staleFrom ??= nextRecordOrder();
        excuseWritten(slot);
      }
    } else if (n.type === 'ended' && slot.present) {
      s.problems.push({ invariant: 'progress', detail: `${slot.plan.name}'s session ended: ${n.reason}` });
    }
  });
  return () => {
    off();
    loop.stop();
  };
}
