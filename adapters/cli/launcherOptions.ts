// The options `host` and `join` share: the password, the session folder, which game to start and the
// simulated game's knobs, --inspect (the live inspector page) and --verbose. Read into a GameChoice by gameChoice() (adapters/launcher/gameProcess.ts).
import { wholeNumber, type OptionSpec } from './args.ts';

export const LAUNCHER_OPTIONS = {
  password: { type: 'string', arg: 'PW', help: 'the session password (both sides must give the same)' },
  'session-dir': {
    type: 'string',
    arg: 'DIR',
    help: 'the session folder: the file link and launcher.log (default: a new folder under the temp folder)',
  },
  game: { type: 'string', arg: 'sim|none', help: 'the simulated game (sim, the default) or no game (none)' },
  'game-dir': { type: 'string', arg: 'PATH', help: 'start Transport Fever 3 from this folder instead' },
  save: { type: 'string', arg: 'FILE', help: 'the save the simulated game starts from (default: a world made from seed 1)' },
  bots: { type: 'string', arg: 'N', help: 'bots in the simulated game, 0 to 64' },
  'bot-rate': { type: 'string', arg: 'PER_MIN', help: "each bot's commands per minute, 0 to 60000" },
  throttle: { type: 'string', arg: 'F', help: 'the simulated game gets F × the wall time, more than 0, at most 4' },
  inspect: { type: 'string', arg: 'PORT', help: 'serve the inspector page on 127.0.0.1:PORT (0: any free port) and print its address' },
  verbose: { type: 'boolean', help: 'print the log to stderr as readable lines (always on a terminal)' },
} as const satisfies Record<string, OptionSpec>;

/** `--inspect PORT` as a port number (undefined when not given). */
export function inspectPort(value: string | undefined): number | undefined {
  return value === undefined ? undefined : wholeNumber('--inspect', value, 0, 65535);
}
