// The host's host.json (docs/FILE_LINK.md): rewritten from the session every half second for the demo, the tests and a
// curious player. A reader must see it whole, so each text goes to a temporary file renamed over it; nobody needs it to
// survive a power loss, so nothing is fsynced. It is written off the event loop (fs/promises), one write at a time,
// and only when its text changed: a synchronous write and rename on every tick stalled every relay for as long as the
// file system took (2–3 ms a rename here) and was the largest timer cost of an idle host.
import { rename, writeFile } from 'node:fs/promises';

export class StatusFile {
  readonly #path: string;
  readonly #temporary: string;
  readonly #onError: (error: unknown) => void;
  /** The last write failed: the next failure is not reported again (one report per streak). */
  #failing = false;
  /** The text the file holds (the last write that succeeded). */
  #written: string | undefined;
  /** The text being written now, and its write. */
  #writing: { text: string; done: Promise<void> } | undefined;
  /** The newest text offered while a write was running: written next. */
  #next: string | undefined;
  #writes = 0;

  /**
   * `onError`: a write failed (a full disk, a folder gone), told once per streak of failures; the next text offered is
   * tried again.
   */
  constructor(path: string, onError: (error: unknown) => void) {
    this.#path = path;
    this.#temporary = `${path}.tmp-${process.pid}`;
    this.#onError = onError;
  }

  /** Writes succeeded so far (the tests count them). */
  get writes(): number {
    return this.#writes;
  }

  /** The status now: written unless the file holds it already or will (a write of the same text is running). */
  offer(text: string): void {
    if (this.#writing !== undefined) {
      this.#next = text === this.#writing.text ? undefined : text;
      return;
    }
    if (text !== this.#written) this.#start(text);
  }

  /** Resolves once what was offered is written (or failed). */
  async settled(): Promise<void> {
    while (this.#writing !== undefined) await this.#writing.done;
  }

  #start(text: string): void {
    const done = this.#write(text).then(
      () => {
        this.#written = text;
        this.#writes++;
        this.#failing = false;
      },
      (error: unknown) => {
        // Not known to be on disk: an offer of the same text writes it again.
        this.#written = undefined;
        if (!this.#failing) this.#onError(error);
        this.#failing = true;
      },
    );
    this.#writing = {
      text,
      done: done.then(() => {
        this.#writing = undefined;
        const next = this.#next;
        this.#next = undefined;
        if (next !== undefined) this.offer(next);
      }),
    };
  }

  async #write(text: string): Promise<void> {
    await writeFile(this.#temporary, text);
    await rename(this.#temporary, this.#path);
  }
}
