// The lines for the game that arrive before its file link is open (a player's launcher opens the link once the
// Welcome named its id; the host's messages may come first). They are kept in order and written first, when the
// link opens. The wait is bounded: past MAX lines or bytes the session ends with a reason (the launcher's stop
// path, `end`), never the process's memory.
import type { LogFn } from '../../actors/ports.ts';
import type { Message } from '../../actors/wire.ts';
import type { GameLink } from '../fileLink/gameLink.ts';
import { TO_GAME_KINDS, type ClockView } from './gameBridge.ts';
import { gameForwarder } from './resyncCursor.ts';

export interface GameOutletOptions {
  log: LogFn;
  /** Ends the session (the launcher's stop path); called once, with the reason, when the wait overflows. */
  end: (reason: string) => void;
  /** The receiver's round trip and offset for the latency stamps (default none). */
  view?: ClockView;
  /** Most messages kept before the link opens (default 4096). */
  maxLines?: number;
  /** Most payload bytes (JSON) kept before the link opens (default 4 MiB). */
  maxBytes?: number;
}

export const DEFAULT_OUTLET_MAX_LINES = 4096;
export const DEFAULT_OUTLET_MAX_BYTES = 4 * 1024 * 1024;

/** Where the session's messages for the game go: kept (bounded) until `attach`, then written through the link. */
export class GameOutlet {
  #options: GameOutletOptions;
  #maxLines: number;
  #maxBytes: number;
  #early: Message[] = [];
  #bytes = 0;
  #link: GameLink | undefined;
  #overflow: string | undefined;
  #droppedAfterOverflow = 0;

  constructor(options: GameOutletOptions) {
    this.#options = options;
    this.#maxLines = options.maxLines ?? DEFAULT_OUTLET_MAX_LINES;
    this.#maxBytes = options.maxBytes ?? DEFAULT_OUTLET_MAX_BYTES;
  }

  /** A message the session has for the game: written now when the link is open, kept otherwise. */
  push(message: Message): void {
    if (this.#overflow !== undefined) {
      this.#droppedAfterOverflow++;
      return;
    }
    if (this.#link) {
      gameForwarder(this.#link, this.#options.log, this.#options.view)(message);
      return;
    }
    if (!TO_GAME_KINDS.has(message.kind)) return; // never written for the game anyway
    let bytes: number;
    try {
      bytes = message.kind.length + Buffer.byteLength(JSON.stringify(message.payload) ?? '', 'utf8') + 2;
    } catch {
      bytes = this.#maxBytes + 1; // a payload JSON cannot carry: forwardToGame would refuse it too
    }
    if (this.#early.length + 1 > this.#maxLines || this.#bytes + bytes > this.#maxBytes) {
      this.#overflowed(`more than ${this.#maxLines} messages or ${this.#maxBytes} bytes for the game arrived before its file link opened`);
      return;
    }
    this.#early.push(message);
    this.#bytes += bytes;
  }

  /** The link is open: writes what was kept, in order, then every later message at once. */
  attach(link: GameLink): void {
    if (this.#overflow !== undefined || this.#link) return;
    this.#link = link;
    const early = this.#early.splice(0);
    this.#bytes = 0;
    // Through the link's one forwarder: a ResyncLoad kept here gets its resync cursor (resyncCursor.ts).
    const forward = gameForwarder(link, this.#options.log, this.#options.view);
    for (const message of early) forward(message);
  }

  /** Messages and bytes kept now; why the outlet overflowed (and how many messages it refused since). */
  status(): { keptLines: number; keptBytes: number; attached: boolean; overflow?: string; droppedAfterOverflow: number } {
    return {
      keptLines: this.#early.length,
      keptBytes: this.#bytes,
      attached: this.#link !== undefined,
      ...(this.#overflow === undefined ? {} : { overflow: this.#overflow }),
      droppedAfterOverflow: this.#droppedAfterOverflow,
    };
  }

  #overflowed(reason: string): void {
    this.#overflow = reason;
    const lost = this.#early.length + 1;
    this.#early = [];
    this.#bytes = 0;
    this.#options.log({ msg: 'game link buffer overflow: ending the session', level: 'error', reason, lost });
    try {
      this.#options.end(reason);
    } catch (error) {
      this.#options.log({ msg: 'ending the session failed', level: 'error', error: String(error) });
    }
  }
}
