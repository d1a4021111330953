// `feverlink3 host --listen HOST:PORT [--name NAME] [--password PW] [--max-players N] [--session-dir DIR]
// [--game sim|none | --game-dir PATH] [--save FILE] [--bots N] [--bot-rate N] [--throttle F] [--verbose]`:
// hosts a session over TCP, prints `join code: <CODE>` for the address actually bound, runs the host's own
// game as player 0, and runs until SIGINT/SIGTERM, closing every connection with a reason.
import { networkInterfaces } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { encodeJoinCode, type Endpoint } from '../../../protocol/joinCode.ts';
import { parsePlayerSet } from '../../../machines/rules/permissions.ts';
import { createLog } from '../../log.ts';
import { gameChoice, LAUNCHER_ARG_OPTIONS } from '../../launcher/gameProcess.ts';
import { launchHost, type RunningHost } from '../../launcher/hostLauncher.ts';
import { parseHostPort, sessionDir } from '../sessionDir.ts';
import { formatChat, formatRoster, readLines, rttPrinter, say, untilSignal } from '../terminal.ts';

const HELP = `commands: /start  /pause  /speed 1|2|4  /players  /kick ID [why]
          /perm build|bulldoze|spend|speed|other everyone|host|ID,ID  /quit      anything else is chat`;

/** The endpoints a join code names: the bound address, or every external interface for a wildcard bind. */
export function joinEndpoints(host: string, port: number): Endpoint[] {
  if (host !== '0.0.0.0' && host !== '::') return [{ host, port }];
  const found: Endpoint[] = [];
  for (const list of Object.values(networkInterfaces())) {
    for (const a of list ?? []) {
      if (a.internal || (host === '0.0.0.0' && a.family !== 'IPv4')) continue;
      if (a.family === 'IPv6' && a.address.startsWith('fe80')) continue;
      found.push({ host: a.address, port });
    }
  }
  found.push({ host: '127.0.0.1', port });
  return found.slice(0, 8);
}

export async function run(args: readonly string[]): Promise<number> {
  const { values } = parseArgs({
    args: [...args],
    options: {
      listen: { type: 'string', default: '127.0.0.1:0' },
      name: { type: 'string', default: 'host' },
      'max-players': { type: 'string', default: '8' },
      ...LAUNCHER_ARG_OPTIONS,
    },
    strict: true,
  });
  const listen = parseHostPort(values.listen);
  const maxPlayers = Number(values['max-players']);
  if (!listen) return usage(`--listen: expected HOST:PORT, got "${values.listen}"`);
  if (!Number.isInteger(maxPlayers) || maxPlayers < 1 || maxPlayers > 64) return usage('--max-players: expected 1..64');
  const game = gameChoice(values, 0);
  if (typeof game === 'string') return usage(game);

  const dir = sessionDir(values['session-dir'], 'host');
  const { log, flush } = createLog({ file: join(dir, 'launcher.log'), pretty: values.verbose || process.stderr.isTTY === true, base: { role: 'host' } });
  const running = await launchHost({
    listen,
    name: values.name,
    ...(values.password === undefined ? {} : { password: values.password }),
    maxPlayers,
    dir,
    game,
    log,
  });
  const { host, listener } = running;
  const code = encodeJoinCode({ created: Math.floor(Date.now() / 1000), secret: running.secret, endpoints: joinEndpoints(listener.host, listener.port) });
  say(`listening on ${listener.host}:${listener.port}`);
  say(`join code: ${code}`);
  say(`session folder: ${dir}`);
  log({ msg: 'hosting', host: listener.host, port: listener.port, maxPlayers, password: values.password !== undefined, game: game.kind });

  const printRtt = rttPrinter(10_000, Date.now);
  host.on((n) => {
    if (n.type === 'joined') say(`${n.name} joined (id ${n.id})`);
    else if (n.type === 'left') say(n.away ? `${n.name} dropped (slot held)` : `${n.name} left`);
    else if (n.type === 'chat') say(formatChat(n.name, n.text, n.level));
    else if (n.type === 'roster') say(`players: ${formatRoster(n.players)}`);
    else if (n.type === 'rtt') printRtt(host.players());
  });
  const stopReading = readLines((line) => command(running, line));

  const signal = await untilSignal();
  say(`stopping (${signal})`);
  log({ msg: 'stopping', signal });
  await running.stop('shutdown');
  stopReading();
  flush();
  return 0;
}

function command({ host, lockstep }: RunningHost, line: string): void {
  if (!line.startsWith('/')) return host.chat(line);
  const [verb, ...rest] = line.slice(1).split(/\s+/);
  switch (verb) {
    case 'start':
      lockstep.start();
      return say(lockstep.waiting() ? `start waits: ${lockstep.waiting()}` : 'start');
    case 'pause':
      lockstep.pause();
      return;
    case 'speed': {
      const speed = Number(rest[0]);
      if (![1, 2, 4].includes(speed)) return say('speed: 1, 2 or 4');
      lockstep.speed(speed);
      return;
    }
    case 'players':
      return say(`players: ${formatRoster(host.players())}`);
    case 'kick': {
      const id = Number(rest[0]);
      if (!host.connectedIds().includes(id)) return say(`no connected player ${rest[0] ?? ''}`);
      return host.kick(id, 'kicked', rest.slice(1).join(' ') || undefined);
    }
    case 'perm': {
      const what = rest[0];
      const set = parsePlayerSet(rest[1] ?? '');
      if (!what || !['build', 'bulldoze', 'spend', 'speed', 'other'].includes(what) || !set) return say(HELP);
      host.setPermissions({ ...host.currentPermissions(), [what]: set });
      return say(`permissions: ${JSON.stringify(host.currentPermissions())}`);
    }
    case 'quit':
      process.kill(process.pid, 'SIGTERM');
      return;
    default:
      return say(HELP);
  }
}

function usage(problem: string): number {
  process.stderr.write(`feverlink3 host: ${problem}\nusage: feverlink3 host --listen HOST:PORT [--name NAME] [--password PW] [--max-players N] [--game sim|none]\n`);
  return 2;
}
