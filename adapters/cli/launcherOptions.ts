// The options `host` and `join` share: the password, the session folder, which game to start and the
// simulated game's knobs, and --verbose. Read into a GameChoice by gameChoice() (adapters/launcher/gameProcess.ts).
import type { OptionSpec } from './args.ts';

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
  verbose: { type: 'boolean', help: 'print the log to stderr as readable lines (always on a terminal)' },
} as const satisfies Record<string, OptionSpec>;
