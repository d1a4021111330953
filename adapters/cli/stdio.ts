// Writing to the launcher's stdout and stderr so that a closed terminal or a reader that went away never ends
// the process. Node turns a failed write (EPIPE from a closed pipe, EIO from a hung-up terminal) into an
// 'error' event on process.stdout / process.stderr, which, unhandled, kills the process at its next line.
// guardStdio() handles it: the stream is marked lost, the loss is reported once (the supervisor logs it),
// and from then on the text meant for it goes to the spill (the launcher log) instead of vanishing.

export type StdName = 'stdout' | 'stderr';

const lostCode: Record<StdName, string | undefined> = { stdout: undefined, stderr: undefined };
let guarded = false;
let onLost: (name: StdName, code: string) => void = () => {};
let spill: (name: StdName, text: string) => void = () => {};

function markLost(name: StdName, error: unknown): void {
  if (lostCode[name] !== undefined) return;
  const code = (error as NodeJS.ErrnoException | undefined)?.code ?? 'unknown';
  lostCode[name] = code;
  onLost(name, code);
}

/** Installs the 'error' handlers on stdout, stderr and stdin (once; later calls do nothing). */
export function guardStdio(): void {
  if (guarded) return;
  guarded = true;
  process.stdout.on('error', (error) => markLost('stdout', error));
  process.stderr.on('error', (error) => markLost('stderr', error));
  // A terminal that went away can fail a read too (EIO); reading just ends.
  process.stdin.on('error', () => {});
}

/** Who hears that a stream was lost, and where the text meant for a lost stream goes. */
export function onStdioLost(lost: (name: StdName, code: string) => void, spillTo: (name: StdName, text: string) => void): void {
  onLost = lost;
  spill = spillTo;
}

/** The error code that ended the stream, undefined while it works. */
export function stdioLost(name: StdName): string | undefined {
  return lostCode[name];
}

/**
 * Writes `text` to the stream; never throws. Text for a lost stream, and the text of the write that failed,
 * goes to the spill unless `spillOnLoss` is false (the log's own terminal copy must not loop back into it).
 */
export function writeStd(name: StdName, text: string, spillOnLoss = true): boolean {
  if (lostCode[name] !== undefined) {
    if (spillOnLoss) spill(name, text);
    return false;
  }
  try {
    process[name].write(text, (error) => {
      if (!error) return;
      markLost(name, error);
      if (spillOnLoss) spill(name, text);
    });
    return true;
  } catch (error) {
    markLost(name, error);
    if (spillOnLoss) spill(name, text);
    return false;
  }
}

export const writeOut = (text: string): boolean => writeStd('stdout', text);
export const writeErr = (text: string): boolean => writeStd('stderr', text);
