// The two ways a command ends on a person's mistake or the machine's refusal, with no stack trace:
// a UsageError (the command line is wrong: one line + the command's usage, exit 2) and a StartupError
// (the command line is fine but something it needs cannot be had: a port in use, a folder that cannot be
// written, a game that cannot start: one line, exit 1). Anything else that escapes is a bug, for the
// process-level handler (supervise.ts).

export class UsageError extends Error {
  override readonly name = 'UsageError';
}

export class StartupError extends Error {
  override readonly name = 'StartupError';
}

/** The system's error codes in words a player understands. */
const REASONS: Readonly<Record<string, string>> = {
  EADDRINUSE: 'port in use',
  EADDRNOTAVAIL: 'no such address on this machine',
  EACCES: 'permission denied',
  EPERM: 'permission denied',
  ENOTFOUND: 'unknown host',
  EAI_AGAIN: 'unknown host (name lookup failed)',
  EAI_NONAME: 'unknown host',
  ENOENT: 'no such file or folder',
  ENOTDIR: 'a part of the path is not a folder',
  EISDIR: 'is a folder',
  EEXIST: 'already exists',
  EROFS: 'read-only file system',
  ENOSPC: 'no space left on the device',
  EMFILE: 'too many open files',
  ECONNREFUSED: 'connection refused',
  ETIMEDOUT: 'timed out',
};

/** A short reason for an error: the words for its code, or its message's first line. */
export function reasonOf(error: unknown): string {
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  if (typeof code === 'string' && REASONS[code] !== undefined) return REASONS[code];
  const message = error instanceof Error ? error.message : String(error);
  return message.split('\n')[0]!.trim() || 'failed';
}

/** `cannot <what>: <reason>`, keeping the original error as the cause (for the log). */
export function startupError(what: string, error: unknown): StartupError {
  if (error instanceof StartupError) return error;
  return new StartupError(`cannot ${what}: ${reasonOf(error)}`, { cause: error });
}
