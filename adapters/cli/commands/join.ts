// `feverlink3 join CODE --name NAME [--password PW] [--session-dir DIR] [--verbose]`: joins a session,
// shows the roster, chat and RTTs, and reads chat lines from standard input (/quit leaves).
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { PlayerSession } from '../../../actors/player/playerSession.ts';
import type { Connection } from '../../../actors/ports.ts';
import { decodeJoinCode, type Endpoint } from '../../../protocol/joinCode.ts';
import { deriveSessionKey } from '../../../protocol/keys.ts';
import { realClock } from '../../clock.ts';
import { nodeCrypto } from '../../crypto/nodeCrypto.ts';
import { createLog } from '../../log.ts';
import { connectTcp } from '../../transport/tcp.ts';
import { sessionDir } from '../sessionDir.ts';
import { formatChat, formatRoster, readLines, rttPrinter, say, untilSignal } from '../terminal.ts';

/** Tries each endpoint of the code in turn; the first that accepts the TCP connection wins. */
export async function connectAny(endpoints: readonly Endpoint[], log: (e: { msg: string }) => void): Promise<Connection | undefined> {
  for (const ep of endpoints) {
    try {
      return await connectTcp({ host: ep.host, port: ep.port, clock: realClock, log });
    } catch (error) {
      log({ msg: 'connect failed', host: ep.host, port: ep.port, error: String(error) } as { msg: string });
    }
  }
  return undefined;
}

export async function run(args: readonly string[]): Promise<number> {
  const { values, positionals } = parseArgs({
    args: [...args],
    options: {
      name: { type: 'string' },
      password: { type: 'string' },
      'session-dir': { type: 'string' },
      verbose: { type: 'boolean', default: false },
    },
    allowPositionals: true,
    strict: true,
  });
  if (positionals.length === 0 || !values.name) {
    process.stderr.write('usage: feverlink3 join CODE --name NAME [--password PW]\n');
    return 2;
  }
  const code = decodeJoinCode(positionals.join(''));
  if (!code) {
    process.stderr.write('not a FeverLink3 join code\n');
    return 1;
  }
  const dir = sessionDir(values['session-dir'], 'player');
  const { log, flush } = createLog({ file: join(dir, 'launcher.log'), pretty: values.verbose, base: { role: 'player', name: values.name } });
  const key = await deriveSessionKey(nodeCrypto, code.secret, values.password);
  const conn = await connectAny(code.endpoints, log);
  if (!conn) {
    say(`could not reach the host at ${code.endpoints.map((e) => `${e.host}:${e.port}`).join(', ') || '(no endpoints)'}`);
    flush();
    return 1;
  }
  const player = new PlayerSession({ name: values.name, key }, { crypto: nodeCrypto, clock: realClock, wallClock: Date.now, log });
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
  player.connect(conn);
  const stopReading = readLines((line) => {
    if (line === '/quit') player.leave();
    else if (line === '/players') say(`players: ${formatRoster(player.players())}`);
    else if (!player.chat(line)) say('not in the session yet');
  });
  const outcome = await Promise.race([ended, untilSignal().then(() => ({ reason: 'left' as const }))]);
  if (outcome.reason === 'left' && player.joined) player.leave();
  const detail = 'detail' in outcome && outcome.detail ? ` (${outcome.detail})` : '';
  say(player.joined || outcome.reason === 'left' ? `session ended: ${outcome.reason}${detail}` : `rejected: ${outcome.reason}${detail}`);
  stopReading();
  flush();
  const fine = ['left', 'shutdown'].includes(outcome.reason);
  return fine ? 0 : 1;
}
