// `feverlink3 demo --report` (issue 14 item 3): at the end of the run, before the launchers stop, one launcher (the
// first player's, the host's when it plays alone) is asked for a bug report with `/report <note>` on its terminal;
// the demo waits for the `bug report: <path>` line it prints once the zip is in its session folder, and gives back
// that path only if the file exists (measured, never assumed). A busy, abandoned or failed report is an error.
import { existsSync } from 'node:fs';
import type { Launcher } from './processes.ts';

/** Parts are waited for at most 60 s by the host, then the zip is closed and sent: 90 s is past every bound. */
export const DEMO_REPORT_WAIT_MS = 90_000;

export async function askDemoReport(asker: Launcher, aborted: Promise<never>, note = 'feverlink3 demo'): Promise<string> {
  const seen = asker.lines.length;
  asker.type(`/report ${note}`);
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, fail) => {
    timer = setTimeout(() => fail(new Error(`the demo timed out waiting for the bug report of ${asker.name}`)), DEMO_REPORT_WAIT_MS);
  });
  try {
    const line = await Promise.race([
      aborted,
      timeout,
      asker.waitForLine((l) => asker.lines.indexOf(l) >= seen && /^bug report( busy| abandoned| failed)?: /.test(l)),
    ]);
    if (!line.startsWith('bug report: ')) throw new Error(`${asker.name}: ${line}`);
    const path = line.slice('bug report: '.length).trim();
    if (!existsSync(path)) throw new Error(`${asker.name} named a bug report that does not exist: ${path}`);
    return path;
  } finally {
    clearTimeout(timer);
  }
}
