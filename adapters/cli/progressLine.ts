// The save transfer's progress bar on a terminal (issue 11 item 2): while a transfer runs, a line
// `resync: [#####.....] 52% 12.0/23.0 MiB 40.1 MiB/s 0:03 left`, redrawn in place on a terminal (carriage return),
// printed every few seconds when the output is a file or a pipe; the line ends once the transfer is over.
import { progressBar } from '../../machines/rules/resyncChunks.ts';

export interface TransferProgress {
  bytes: number;
  total: number;
  bytesPerSecond: number;
  secondsLeft: number | undefined;
}

export interface ProgressLineOptions {
  /** The transfer's progress now, or undefined when none runs. */
  read(): TransferProgress | undefined;
  write(text: string): void;
  /** A terminal: redraw in place; otherwise one line every `plainEveryMs`. */
  tty: boolean;
  now(): number;
  label?: string;
  plainEveryMs?: number;
}

/** One step of the printer (call it every second or so); returns whether a transfer runs. */
export function progressLine(o: ProgressLineOptions): () => boolean {
  const label = o.label ?? 'resync';
  const every = o.plainEveryMs ?? 5_000;
  let drawing = false;
  let lastPlain = -Infinity;
  return () => {
    const p = o.read();
    if (p === undefined) {
      if (drawing && o.tty) o.write('\n');
      drawing = false;
      return false;
    }
    const text = `${label}: ${progressBar(p)}`;
    if (o.tty) o.write(`\r${text}`);
    else if (o.now() - lastPlain >= every || !drawing) {
      o.write(`${text}\n`);
      lastPlain = o.now();
    }
    drawing = true;
    return true;
  };
}

/** Runs the printer once a second on the real clock until the returned stop function is called. */
export function startProgressLine(o: ProgressLineOptions): () => void {
  const step = progressLine(o);
  const timer = setInterval(step, 1_000);
  timer.unref();
  return () => clearInterval(timer);
}
