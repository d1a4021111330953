// `feverlink3 simgame …`: the simulated game (adapters/simgame/main.ts), a stand-in for Transport
// Fever 3 that runs the real Lua mod and talks to the launcher only through the session folder.
import { runSimGame, USAGE } from '../../simgame/main.ts';

/** Its usage (the simulated game parses its own options and prints its own errors). */
export const usage = USAGE;

/** Runs the simulated game until SIGTERM/SIGINT; returns the exit status. */
export async function run(args: readonly string[]): Promise<number> {
  return runSimGame(args);
}
