// The launcher's command line: `feverlink3 <command> [args]`. Each command lives in its own module under
// ./commands and exports `usage` (its usage text) and `run(args): Promise<number>` (the exit status).
// Exit statuses: 0 done, 1 could not do it (StartupError: one line), 2 the command line is wrong (UsageError:
// one line and the command's usage). runCli() is the process around it (supervise.ts).
import { StartupError, UsageError } from './failure.ts';
import { writeErr, writeOut } from './stdio.ts';
import { fatal, logIfAttached, superviseProcess } from './supervise.ts';
import { version } from '../runtime.ts';

const commands: Record<string, { summary: string }> = {
  code: { summary: 'code CODE [--json] [--show-secret]   decode a join code' },
  host: { summary: 'host --listen HOST:PORT [--name N] [--password PW] [--max-players N] [--game sim|none|--game-dir PATH]' },
  join: { summary: 'join CODE --name NAME [--password PW] [--game sim|none|--game-dir PATH]' },
  demo: { summary: 'demo [--players N] [--seconds S] [--json]   a local session of simulated games' },
  inspect: { summary: 'inspect FILE|DIR [--port PORT]   serve a recorded trace.jsonl (or a session folder) in the inspector page' },
  simgame: { summary: 'simgame --session-dir DIR --save FILE [--seed N] [--bots N]   the simulated game' },
};

interface Command {
  usage: string;
  run(args: readonly string[]): Promise<number>;
}

export function usage(): string {
  return [
    'usage: feverlink3 <command> [options]',
    '',
    ...Object.values(commands).map((c) => `  feverlink3 ${c.summary}`),
    '',
    '  feverlink3 <command> --help   prints the command\'s options',
    '  feverlink3 --version          prints the version',
  ].join('\n');
}

/** Each command's module, loaded when asked for. Static imports (not a template), so esbuild bundles them all. */
const modules: Record<string, () => Promise<Command>> = {
  code: () => import('./commands/code.ts'),
  host: () => import('./commands/host.ts'),
  join: () => import('./commands/join.ts'),
  demo: () => import('./commands/demo.ts'),
  inspect: () => import('./commands/inspect.ts'),
  simgame: () => import('./commands/simgame.ts'),
};

function load(name: string): Promise<Command> {
  return modules[name]!();
}

export async function main(argv: readonly string[]): Promise<number> {
  const [name, ...args] = argv;
  if (name === '--version' || name === '-v' || name === 'version') {
    writeOut(`feverlink3 ${version()}\n`);
    return 0;
  }
  if (name === undefined || name === 'help' || name === '--help' || name === '-h') {
    const topic = name === 'help' ? args[0] : undefined;
    if (topic !== undefined && Object.hasOwn(commands, topic)) {
      writeOut(`${(await load(topic)).usage}\n`);
      return 0;
    }
    if (name === undefined) {
      writeErr(`feverlink3: missing the command\n${usage()}\n`);
      return 2;
    }
    writeOut(`${usage()}\n`);
    return 0;
  }
  if (!Object.hasOwn(commands, name)) {
    writeErr(`feverlink3: unknown command ${JSON.stringify(name)}\n${usage()}\n`);
    return 2;
  }
  const command = await load(name);
  try {
    return await command.run(args);
  } catch (error) {
    if (error instanceof UsageError) {
      writeErr(`feverlink3 ${name}: ${error.message}\n${command.usage}\n`);
      return 2;
    }
    if (error instanceof StartupError) {
      logIfAttached({ level: 'error', msg: 'could not start', error: error.message, cause: String(error.cause ?? '') });
      writeErr(`feverlink3: ${error.message}\n`);
      return 1;
    }
    throw error;
  }
}

/** Runs a command as this process: supervised, its status the exit code. */
export async function runCli(argv: readonly string[]): Promise<void> {
  superviseProcess();
  try {
    process.exitCode = await main(argv);
  } catch (error) {
    fatal(error, 'command failed');
  }
}
