// A real session folder in a temp directory for the mod's tests: identity.txt, the launcher's side of
// to_game.log (append lines) and a reader of from_game.log / mod.log (session-folder contract).
import { appendFileSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** One parsed line of from_game.log. */
export interface LinkLine {
  kind: string;
  payload: Record<string, unknown>;
}

/** The launcher's view of one session folder. */
export interface SessionFolder {
  dir: string;
  /** Appends `<kind>\t<json>\n` to to_game.log. */
  send(kind: string, payload: unknown): void;
  /** Appends raw bytes to to_game.log. */
  sendRaw(text: string): void;
  /** Every line of from_game.log, parsed (a torn or bad line throws: the mod must never write one). */
  out(): LinkLine[];
  /** The lines of from_game.log of one kind. */
  outOf(kind: string): Record<string, unknown>[];
  modLog(): string;
  cleanup(): void;
}

/** Makes a session folder with identity.txt for player `id` (0 = host). */
export function makeSessionFolder(id: number, opts: { name?: string; start?: string } = {}): SessionFolder {
  const dir = mkdtempSync(join(tmpdir(), 'fl3-mod-'));
  const lines = [`name=${opts.name ?? `game${id}`}`, `id=${id}`, `role=${id === 0 ? 'host' : 'player'}`];
  if (opts.start) lines.push(`start=${opts.start}`);
  writeFileSync(join(dir, 'identity.txt'), lines.join('\n') + '\n');
  const read = (name: string): string => (existsSync(join(dir, name)) ? readFileSync(join(dir, name), 'utf8') : '');
  const out = (): LinkLine[] =>
    read('from_game.log')
      .split('\n')
      .filter((l) => l !== '')
      .map((l) => {
        const tab = l.indexOf('\t');
        if (tab < 0) throw new Error(`from_game.log line without a tab: ${l}`);
        return { kind: l.slice(0, tab), payload: JSON.parse(l.slice(tab + 1)) as Record<string, unknown> };
      });
  return {
    dir,
    send: (kind, payload) => appendFileSync(join(dir, 'to_game.log'), `${kind}\t${JSON.stringify(payload)}\n`),
    sendRaw: (text) => appendFileSync(join(dir, 'to_game.log'), text),
    out,
    outOf: (kind) => out().filter((l) => l.kind === kind).map((l) => l.payload),
    modLog: () => read('mod.log'),
    cleanup: () => rmSync(dir, { recursive: true, force: true }),
  };
}
