// `feverlink3 join CODE --name NAME [--password PW] [--session-dir DIR] [--game sim|none | --game-dir PATH]
// [--save FILE] [--bots N] [--bot-rate N] [--throttle F] [--verbose]`: joins a session, runs the player's
// game on the file link, shows the roster, chat and RTTs, and reads chat lines from stdin (/quit leaves).
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { decodeJoinCode } from '../../../protocol/joinCode.ts';
import { createLog } from '../../log.ts';
import { gameChoice, LAUNCHER_ARG_OPTIONS } from '../../launcher/gameProcess.ts';
import { launchPlayer } from '../../launcher/playerLauncher.ts';
import { sessionDir } from '../sessionDir.ts';
import { formatChat, formatRoster, readLines, rttPrinter, say, untilSignal } from '../terminal.ts';

/** The bots of each player differ: their seed comes from the player's name. */
function seedOf(name: string): number {
  let h = 2166136261;
  for (const c of name) h = Math.imul(h ^ c.codePointAt(0)!, 16777619) >>> 0;
  return h;
}

export async function run(args: readonly string[]): Promise<number> {
  const { values, positionals } = parseArgs({
    args: [...args],
    options: {
      name: { type: 'string' },
      ...LAUNCHER_ARG_OPTIONS,
    },
    allowPositionals: true,
    strict: true,
  });
  if (positionals.length === 0 || !values.name) {
    process.stderr.write('usage: feverlink3 join CODE --name NAME [--password PW] [--game sim|none]\n');
    return 2;
  }
  const code = decodeJoinCode(positionals.join(''));
  if (!code) {
    process.stderr.write('not a FeverLink3 join code\n');
    return 1;
  }
  const game = gameChoice(values, seedOf(values.name));
  if (typeof game === 'string') {
    process.stderr.write(`feverlink3 join: ${game}\n`);
    return 2;
  }
  const dir = sessionDir(values['session-dir'], 'player');
  const { log, flush } = createLog({ file: join(dir, 'launcher.log'), pretty: values.verbose || process.stderr.isTTY === true, base: { role: 'player', name: values.name } });
  const running = await launchPlayer({
    code,
    name: values.name,
    ...(values.password === undefined ? {} : { password: values.password }),
    dir,
    game,
    log,
  });
  if (!running) {
    say(`could not reach the host at ${code.endpoints.map((e) => `${e.host}:${e.port}`).join(', ') || '(no endpoints)'}`);
    flush();
    return 1;
  }
  const { player } = running;
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
  const stopReading = readLines((line) => {
    if (line === '/quit') player.leave();
    else if (line === '/players') say(`players: ${formatRoster(player.players())}`);
    else if (!player.chat(line)) say('not in the session yet');
  });
  const outcome = await Promise.race([ended, untilSignal().then(() => ({ reason: 'left' as const }))]);
  if (outcome.reason === 'left' && player.joined) player.leave();
  const detail = 'detail' in outcome && outcome.detail ? ` (${outcome.detail})` : '';
  say(player.joined || outcome.reason === 'left' ? `session ended: ${outcome.reason}${detail}` : `rejected: ${outcome.reason}${detail}`);
  await running.stop();
  stopReading();
  flush();
  return ['left', 'shutdown'].includes(outcome.reason) ? 0 : 1;
}
