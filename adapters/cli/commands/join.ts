// `feverlink3 join CODE --name NAME [--password PW] [--session-dir DIR] [--game sim|none | --game-dir PATH]
// [--save FILE] [--bots N] [--bot-rate N] [--throttle F] [--verbose]`: joins a session, runs the player's
// game on the file link, shows the roster, chat and RTTs, and reads chat lines from stdin (/quit leaves). A dropped
// connection is reconnected by itself (adapters/launcher/reconnect.ts): `connection lost (…): reconnecting …`, one
// `reconnecting: attempt N, …` line per attempt, then `reconnected after S s and N attempts (resumed, caught up)` or
// `reconnect gave up …`.
import { decodeJoinCode } from '../../../protocol/joinCode.ts';
import { gameChoice } from '../../launcher/gameProcess.ts';
import { addressText } from '../../launcher/hostLauncher.ts';
import { launchPlayer } from '../../launcher/playerLauncher.ts';
import { parseCommandLine, usageText, type CommandSpec } from '../args.ts';
import { StartupError, UsageError } from '../failure.ts';
import { openLauncherLog } from '../launcherLog.ts';
import { inspectPort, LAUNCHER_OPTIONS } from '../launcherOptions.ts';
import { sessionDir } from '../sessionDir.ts';
import { writeOut } from '../stdio.ts';
import { formatChat, formatRoster, readLines, rttPrinter, say, untilSignal } from '../terminal.ts';
import { startProgressLine } from '../progressLine.ts';

export const spec = {
  name: 'join',
  synopsis: ['join CODE --name NAME [--password PW] [--game sim|none | --game-dir PATH]'],
  about: 'joins the session of a join code: shows the roster, chat and RTTs; lines typed are chat, /players, /report [note], /quit',
  operands: { name: 'the join code (CODE)', min: 1 },
  options: {
    name: { type: 'string', arg: 'NAME', help: "this player's name", required: true },
    ...LAUNCHER_OPTIONS,
  },
} as const satisfies CommandSpec;

export const usage = usageText(spec);

/** The bots of each player differ: their seed comes from the player's name. */
function seedOf(name: string): number {
  let h = 2166136261;
  for (const c of name) h = Math.imul(h ^ c.codePointAt(0)!, 16777619) >>> 0;
  return h;
}

export async function run(args: readonly string[]): Promise<number> {
  const parsed = parseCommandLine(spec, args);
  if (parsed.help) {
    writeOut(`${usage}\n`);
    return 0;
  }
  const { values, operands } = parsed;
  if (values.name.trim() === '') throw new UsageError('--name: a name is needed');
  // A code pasted with spaces arrives as several arguments; the decoder ignores the spaces.
  const code = decodeJoinCode(operands.join(' '));
  if (!code) throw new UsageError('not a FeverLink3 join code (check it was copied whole)');
  const game = gameChoice(values, seedOf(values.name));
  if (typeof game === 'string') throw new UsageError(game);
  const inspect = inspectPort(values.inspect);

  const dir = sessionDir(values['session-dir'], 'player');
  const { log, flush } = openLauncherLog(dir, values.verbose, { role: 'player', name: values.name });
  const running = await launchPlayer({
    code,
    name: values.name,
    ...(values.password === undefined ? {} : { password: values.password }),
    dir,
    game,
    log,
    ...(inspect === undefined ? {} : { inspect }),
  });
  if (!running) {
    flush();
    throw new StartupError(`cannot reach the host at ${code.endpoints.map((e) => addressText(e.host, e.port)).join(', ') || '(no endpoints)'}`);
  }
  const stopped = untilSignal();
  const { player } = running;
  if (running.inspectorUrl) say(`inspector: ${running.inspectorUrl}`);
  const printRtt = rttPrinter(10_000, Date.now);
  const ended = new Promise<{ reason: string; detail?: string }>((resolve) => {
    player.on((n) => {
      if (n.type === 'welcomed') say(`joined as ${values.name} (id ${n.you}), host ${n.hostName}`);
      else if (n.type === 'roster') say(`players: ${formatRoster(n.players)}`);
      else if (n.type === 'chat') say(formatChat(n.name, n.text, n.level));
      else if (n.type === 'rtt') printRtt(player.players());
      else if (n.type === 'ended') resolve(n);
    });
  });
  // Reconnecting by itself after a drop (adapters/launcher/reconnect.ts): one line per step on the terminal.
  running.reconnect.on((e) => {
    if (e.type === 'away') say(`connection lost (${e.reason}): reconnecting for up to ${Math.round(e.windowMs / 1000)} s`);
    else if (e.type === 'attempt') say(running.reconnect.statusLine() ?? `reconnecting: attempt ${e.attempt}`);
    else if (e.type === 'failed') say(`reconnect attempt ${e.attempt} failed: ${e.reason}`);
    else if (e.type === 'reconnected') {
      const how = e.resumed ? (e.caughtUp === false ? 'resumed, the world is reloaded' : 'resumed, caught up') : `a new player, id ${e.you}`;
      say(`reconnected after ${(e.awayMs / 1000).toFixed(1)} s and ${e.attempts} attempt${e.attempts === 1 ? '' : 's'} (${how})`);
    } else if (e.type === 'gaveUp') say(`reconnect gave up after ${e.attempts} attempts: the reconnect window ended`);
  });
  running.report.on((n) => {
    if (n.type === 'received') say(`bug report: ${n.path}`);
    else if (n.type === 'busy') say(`bug report busy: report ${n.report} asked by ${n.byName} is being made`);
    else say(`bug report failed: ${n.why}`);
  });
  const stopReading = readLines((line) => {
    if (line === '/quit') {
      if (player.resumable) player.giveUp('left');
      else player.leave();
    }
    else if (line === '/players') {
      say(`players: ${formatRoster(player.players())}`);
      const reconnecting = running.reconnect.statusLine();
      if (reconnecting) say(reconnecting);
    }
    else if (line === '/report' || line.startsWith('/report ')) {
      const note = line.slice('/report'.length).trim();
      say(running.report.request(note || undefined) ? 'bug report asked' : 'not in the session yet');
    }
    else if (!player.chat(line)) say('not in the session yet');
  });
  // The resync save on its way here: a progress bar (redrawn in place on a terminal).
  const stopProgress = startProgressLine({ read: () => running.saveProgress(), write: (t) => void writeOut(t), tty: process.stdout.isTTY === true, now: Date.now });
  const outcome = await Promise.race([
    ended,
    stopped.then(() => ({ reason: 'left' as const })),
    running.failed.then((failure) => ({ reason: 'failed' as const, failure })),
  ]);
  running.reconnect.stop();
  stopProgress();
  // Going while the connection is down ends the held session here (the host releases the slot when its window ends).
  if ((outcome.reason === 'left' || outcome.reason === 'failed') && player.resumable) player.giveUp(outcome.reason);
  else if ((outcome.reason === 'left' || outcome.reason === 'failed') && player.joined) player.leave();
  if ('failure' in outcome) {
    await running.stop();
    stopReading();
    flush();
    throw outcome.failure;
  }
  const detail = 'detail' in outcome && outcome.detail ? ` (${outcome.detail})` : '';
  say(player.joined || outcome.reason === 'left' ? `session ended: ${outcome.reason}${detail}` : `rejected: ${outcome.reason}${detail}`);
  await running.stop();
  stopReading();
  flush();
  return ['left', 'shutdown'].includes(outcome.reason) ? 0 : 1;
}
