// The launcher's command line: `feverlink3 <command> [args]`. Each command lives in its own
// module under ./commands and exports `run(args): Promise<number>` (the exit status).

const commands: Record<string, { summary: string }> = {
  code: { summary: 'code CODE [--json] [--show-secret]   decode a join code' },
  host: { summary: 'host --listen HOST:PORT [--name N] [--password PW] [--max-players N] [--game sim|none|--game-dir PATH]' },
  join: { summary: 'join CODE --name NAME [--password PW] [--game sim|none|--game-dir PATH]' },
  demo: { summary: 'demo [--players N] [--seconds S] [--json]   a local session of simulated games' },
  simgame: { summary: 'simgame --session-dir DIR --save FILE [--seed N] [--bots N]   the simulated game (see --help)' },
};

export function usage(): string {
  return ['usage: feverlink3 <command> [options]', '', ...Object.values(commands).map((c) => `  feverlink3 ${c.summary}`)].join('\n');
}

export async function main(argv: readonly string[]): Promise<number> {
  const [name, ...args] = argv;
  if (name === undefined || name === 'help' || name === '--help' || name === '-h') {
    console.log(usage());
    return name === undefined ? 2 : 0;
  }
  if (!Object.hasOwn(commands, name)) {
    console.error(`feverlink3: unknown command "${name}"\n\n${usage()}`);
    return 2;
  }
  const module = (await import(`./commands/${name}.ts`)) as { run(args: readonly string[]): Promise<number> };
  return module.run(args);
}
