// `feverlink3 host --listen HOST:PORT [--name NAME] [--password PW] [--max-players N] [--session-dir DIR]
// [--game sim|none | --game-dir PATH] [--save FILE] [--bots N] [--bot-rate N] [--throttle F] [--verbose]`:
// hosts a session over TCP, prints `join code: <CODE>` for the address actually bound, runs the host's own
// game as player 0, and runs until SIGINT/SIGTERM, closing every connection with a reason.
import { networkInterfaces } from 'node:os';
import { encodeJoinCode, type Endpoint } from '../../../protocol/joinCode.ts';
import { parsePlayerSet } from '../../../machines/rules/permissions.ts';
import { gameChoice } from '../../launcher/gameProcess.ts';
import { DEFAULT_LIMITS } from '../../transport/limits.ts';
import { addressText, launchHost, type RunningHost } from '../../launcher/hostLauncher.ts';
import { parseCommandLine, usageText, wholeNumber, type CommandSpec } from '../args.ts';
import { StartupError, UsageError } from '../failure.ts';
import { openLauncherLog } from '../launcherLog.ts';
import { inspectPort, LAUNCHER_OPTIONS } from '../launcherOptions.ts';
import { parseHostPort, sessionDir } from '../sessionDir.ts';
import { writeOut } from '../stdio.ts';
import { formatChat, formatRoster, readLines, rttPrinter, say, untilSignal } from '../terminal.ts';
import { startProgressLine } from '../progressLine.ts';

const HELP = `commands: /start  /pause  /speed 1|2|4  /resync [why]  /players  /kick ID [why]  /report [note]
          /perm build|bulldoze|spend|speed|other everyone|host|ID,ID  /quit      anything else is chat`;

/** say() prints one line (a line break in it would be replaced), so the help goes line by line. */
const sayHelp = (): void => HELP.split('\n').forEach((line) => say(line));

export const spec = {
  name: 'host',
  synopsis: ['host [--listen HOST:PORT] [--name NAME] [--password PW] [--max-players N] [--game sim|none | --game-dir PATH]'],
  about: 'hosts a session over TCP: prints the join code, runs the host\'s own game as player 0, ends on Ctrl-C or /quit',
  options: {
    listen: { type: 'string', arg: 'HOST:PORT', help: 'the address to listen on (0.0.0.0:27015 for every interface)', default: '127.0.0.1:0' },
    name: { type: 'string', arg: 'NAME', help: "the host player's name", default: 'host' },
    'max-players': { type: 'string', arg: 'N', help: 'players in the session, the host included, 1 to 64', default: '8' },
    ...LAUNCHER_OPTIONS,
  },
  notes: [
    'lines typed while it runs: /start  /pause  /speed 1|2|4  /resync [why]  /players  /kick ID [why]  /report [note]  /quit',
    '  /perm build|bulldoze|spend|speed|other everyone|host|ID,ID; anything else is chat',
  ],
} as const satisfies CommandSpec;

export const usage = usageText(spec);

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

/**
 * The host-relay bench's capacity run offers more Actions than the spec's 1000 frames and 1 MiB a second per
 * connection allow, so it scales those two limits in the host's environment (docs/DECISIONS.md "Bench: the relay's
 * capacity"). Only the host's own operator can set it, no peer can; unset, the spec's limits hold.
 */
export const RATE_SCALE_ENV = 'FEVERLINK3_RATE_LIMIT_SCALE';

/** The factor of RATE_SCALE_ENV (a whole number 1–1000), if set; a UsageError for anything else. */
export function rateLimitScale(env: NodeJS.ProcessEnv): number | undefined {
  const text = env[RATE_SCALE_ENV];
  return text === undefined || text === '' ? undefined : wholeNumber(RATE_SCALE_ENV, text, 1, 1000);
}

/** The spec's frame and byte rates per connection, times `scale`. */
export function scaledRates(scale: number): { maxFramesPerSecond: number; maxBytesPerSecond: number } {
  return { maxFramesPerSecond: DEFAULT_LIMITS.maxFramesPerSecond * scale, maxBytesPerSecond: DEFAULT_LIMITS.maxBytesPerSecond * scale };
}

export async function run(args: readonly string[]): Promise<number> {
  const parsed = parseCommandLine(spec, args);
  if (parsed.help) {
    writeOut(`${usage}\n`);
    return 0;
  }
  const { values } = parsed;
  const listen = parseHostPort(values.listen);
  if (!listen) throw new UsageError(`--listen: expected HOST:PORT, got ${JSON.stringify(values.listen)}`);
  const maxPlayers = wholeNumber('--max-players', values['max-players'], 1, 64);
  const game = gameChoice(values, 0);
  if (typeof game === 'string') throw new UsageError(game);
  const inspect = inspectPort(values.inspect);
  const rateScale = rateLimitScale(process.env);
  const lifted = rateScale === undefined ? undefined : scaledRates(rateScale);

  const dir = sessionDir(values['session-dir'], 'host');
  const { log, flush } = openLauncherLog(dir, values.verbose, { role: 'host' });
  const running = await launchHost({
    listen,
    name: values.name,
    ...(values.password === undefined ? {} : { password: values.password }),
    maxPlayers,
    dir,
    game,
    log,
    ...(inspect === undefined ? {} : { inspect }),
    ...(lifted === undefined ? {} : { transportLimits: lifted }),
  });
  // Handled from before the first line printed: whoever reads the join code may signal at once.
  const stopped = untilSignal();
  const { host, listener } = running;
  const code = encodeJoinCode({ created: Math.floor(Date.now() / 1000), secret: running.secret, endpoints: joinEndpoints(listener.host, listener.port) });
  say(`listening on ${addressText(listener.host, listener.port)}`);
  say(`join code: ${code}`);
  say(`session folder: ${dir}`);
  if (running.inspectorUrl) say(`inspector: ${running.inspectorUrl}`);
  log({ msg: 'hosting', host: listener.host, port: listener.port, maxPlayers, password: values.password !== undefined, game: game.kind });
  if (lifted !== undefined) {
    const { maxFramesPerSecond, maxBytesPerSecond } = lifted;
    say(`rate limits lifted ${rateScale}×: ${maxFramesPerSecond} frames and ${maxBytesPerSecond} bytes a second per connection (${RATE_SCALE_ENV})`);
    log({ msg: 'rate limits lifted', level: 'warn', maxFramesPerSecond, maxBytesPerSecond, by: RATE_SCALE_ENV });
  }

  const printRtt = rttPrinter(10_000, Date.now);
  host.on((n) => {
    if (n.type === 'joined') say(`${n.name} joined (id ${n.id})`);
    else if (n.type === 'left') say(n.away ? `${n.name} dropped (slot held)` : `${n.name} left`);
    else if (n.type === 'chat') say(formatChat(n.name, n.text, n.level));
    else if (n.type === 'roster') say(`players: ${formatRoster(n.players)}`);
    else if (n.type === 'rtt') printRtt(host.players());
  });
  running.report.on((n) => {
    if (n.type === 'written') say(`bug report: ${n.path}`);
    else if (n.type === 'busy') say(`bug report busy: report ${n.report} asked by ${n.byName} is being made`);
    else say(`bug report abandoned: ${n.why}`);
  });
  const stopReading = readLines((line) => command(running, line));
  // The resync save on its way to the players: a progress bar (the slowest participant's), redrawn on a terminal.
  const transferring = () => {
    const status = running.resync.status();
    return status.state === 'Transferring' ? status.transfer : undefined;
  };
  const stopProgress = startProgressLine({ read: transferring, write: (t) => void writeOut(t), tty: process.stdout.isTTY === true, now: Date.now });

  const outcome = await Promise.race([stopped.then((signal) => ({ signal })), running.failed.then((failure) => ({ failure }))]);
  stopProgress();
  if ('failure' in outcome) {
    // The session cannot go on (our lockstep failed, the game link failed): one line, status 1.
    log({ msg: 'stopping', level: 'error', failure: outcome.failure });
    await running.stop('internal-error');
    stopReading();
    flush();
    throw new StartupError(`the session ended: ${outcome.failure}`);
  }
  say(`stopping (${outcome.signal})`);
  log({ msg: 'stopping', signal: outcome.signal });
  await running.stop('shutdown');
  stopReading();
  flush();
  return 0;
}

function command({ host, lockstep, report, resync }: RunningHost, line: string): void {
  if (!line.startsWith('/')) return host.chat(line);
  const [verb, ...rest] = line.slice(1).split(/\s+/);
  switch (verb) {
    case 'start':
      lockstep.start();
      return say(lockstep.waiting() ? `start waits: ${lockstep.waiting()}` : 'start');
    case 'pause':
      // During a round the resync chart ignores it and logs it (spec "Resync round").
      if (!resync.hostPause()) say(`pause ignored: resync ${resync.status().id} runs (${resync.status().state})`);
      return;
    case 'speed': {
      const speed = Number(rest[0]);
      if (![1, 2, 4].includes(speed)) return say('speed: 1, 2 or 4');
      if (!resync.hostSpeed(speed)) say(`speed ignored: resync ${resync.status().id} runs (${resync.status().state})`);
      return;
    }
    case 'resync':
      if (resync.running()) return say(`resync ${resync.status().id} already runs (${resync.status().state})`);
      resync.start(rest.join(' ') || 'the host asked');
      return;
    case 'players':
      return say(`players: ${formatRoster(host.players())}`);
    case 'report':
      report.request(rest.join(' ') || undefined);
      return say('bug report asked');
    case 'kick': {
      const id = Number(rest[0]);
      if (!host.connectedIds().includes(id)) return say(`no connected player ${rest[0] ?? ''}`);
      return host.kick(id, 'kicked', rest.slice(1).join(' ') || undefined);
    }
    case 'perm': {
      const what = rest[0];
      const set = parsePlayerSet(rest[1] ?? '');
      if (!what || !['build', 'bulldoze', 'spend', 'speed', 'other'].includes(what) || !set) return sayHelp();
      host.setPermissions({ ...host.currentPermissions(), [what]: set });
      return say(`permissions: ${JSON.stringify(host.currentPermissions())}`);
    }
    case 'quit':
      process.kill(process.pid, 'SIGTERM');
      return;
    default:
      return sayHelp();
  }
}
