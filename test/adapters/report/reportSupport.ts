// Shared fixtures of the bug-report adapter tests: a session folder as a launcher leaves it (launcher.log, the game's
// logs, rotated trace files, a save and a temp file that must stay out), written with home paths and a user name.
import { mkdir, mkdtemp, utimes, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export const USER = 'margarethe';
export const HOST = 'MARGS-DESKTOP';

/** A temp folder for one test. */
export async function tempDir(prefix = 'fl3-report-'): Promise<string> {
  return mkdtemp(join(tmpdir(), prefix));
}

/** Lines that name the user's machine in every way the rule covers. */
export function revealingLines(n: number, tag: string): string {
  const lines: string[] = [];
  for (let i = 0; i < n; i++) {
    const kind = i % 4;
    if (kind === 0) lines.push(`{"msg":"${tag} opened","path":"/home/${USER}/.local/share/tf3/${i}.sav"}`);
    else if (kind === 1) lines.push(`{"msg":"${tag} game","path":"C:\\\\Users\\\\${USER}\\\\AppData\\\\Roaming\\\\tf3"}`);
    else if (kind === 2) lines.push(`${tag} ${i}: user ${USER} on ${HOST} wrote /Users/${USER}/Library/x`);
    else lines.push(`${tag} ${i}: nothing personal here, step ${i * 7}`);
  }
  return `${lines.join('\n')}\n`;
}

export interface FolderSpec {
  /** Extra bytes of an old, big game log (to make the part cut). */
  bigOldBytes?: number;
}

/** A session folder with its report files, modification times spread so the order is known (newest: trace.jsonl). */
export async function sessionFolder(root: string, name: string, spec: FolderSpec = {}): Promise<string> {
  const dir = join(root, name);
  await mkdir(dir, { recursive: true });
  const files: [string, string][] = [
    ['launcher.log', revealingLines(40, 'launcher')],
    ['mod.log', revealingLines(30, 'mod')],
    ['from_game.log', 'Hello\t{"time":0}\n'.repeat(20)],
    ['to_game.log', 'Session\t{"started":true}\n'.repeat(20)],
    ['identity.txt', `name=${USER}\nid=1\nrole=player\n`],
    ['trace.1.jsonl', revealingLines(20, 'trace-old')],
    ['trace.jsonl', revealingLines(20, 'trace')],
    ['world.sav', 'SAVEGAME'.repeat(100)],
    ['.feverlink3-resync-3.part', 'TEMP'],
  ];
  if (spec.bigOldBytes) files.unshift(['detail_old.txt', `${'old line of a detail dump\n'.repeat(Math.ceil(spec.bigOldBytes / 26))}`]);
  let t = 1_700_000_000;
  for (const [file, text] of files.reverse()) {
    const path = join(dir, file);
    await writeFile(path, text);
    await utimes(path, t, t);
    t -= 10;
  }
  return dir;
}
