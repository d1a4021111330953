// Writing a message for the game with the resync cursor (spec architecture §2: "where a reloaded mod resumes" is
// resync_cursor.txt; docs/FILE_LINK.md). A ResyncLoad line makes the game load a save and its mod start again in a
// fresh Lua state, which reads to_game.log from resync_cursor.txt: the position just after that load line. So the
// ResyncLoad is appended on its own, the cursor is written as the position right after it, and every message that
// comes meanwhile waits and is written after (in order), so none lands between the line and the cursor and none is
// read by the world being replaced.
import type { LogFn } from '../../actors/ports.ts';
import type { Message } from '../../actors/wire.ts';
import { payloadToJson } from '../../protocol/messages/index.ts';
import type { GameLink } from '../fileLink/gameLink.ts';
import { forwardToGame, type ClockView } from './gameBridge.ts';

/** One forwarder per link: the early outlet and the bridge write through the same one, so their order holds. */
const forwarders = new WeakMap<GameLink, (message: Message) => void>();

/**
 * The forwarder of `link` (made on the first call; later calls get the same one): like forwardToGame, with the resync
 * cursor written after each ResyncLoad.
 */
export function gameForwarder(link: GameLink, log: LogFn, view?: ClockView): (message: Message) => void {
  let forwarder = forwarders.get(link);
  if (forwarder === undefined) {
    forwarder = makeForwarder(link, log, view);
    forwarders.set(link, forwarder);
  }
  return forwarder;
}

function makeForwarder(link: GameLink, log: LogFn, view?: ClockView): (message: Message) => void {
  let waiting: Message[] | undefined;
  const forward = (message: Message): void => {
    if (waiting) {
      waiting.push(message);
      return;
    }
    if (message.kind !== 'ResyncLoad') {
      forwardToGame(link, message, log, view);
      return;
    }
    waiting = [];
    const { id } = message.payload;
    link
      .send('ResyncLoad', JSON.parse(payloadToJson('ResyncLoad', message.payload)))
      .then(async () => {
        const position = link.toGamePosition();
        await link.writeResyncCursor(position);
        log({ msg: `resync ${id}: load sent to the game; resync cursor ${position.gen}:${position.offset}` });
      })
      .catch((error: unknown) => log({ msg: `resync ${id}: the load or its resync cursor was not written`, level: 'error', error: String(error) }))
      .finally(() => {
        const after = waiting ?? [];
        waiting = undefined;
        for (const next of after) forward(next);
      });
  };
  return forward;
}
