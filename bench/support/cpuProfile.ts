// Reads a V8 .cpuprofile (node --cpu-prof) and sums the self time per function, optionally only over the samples
// taken inside a window of the monotonic clock (V8's sample times and process.hrtime are both CLOCK_MONOTONIC on
// Linux, in µs and ns), so the host's start-up (tsx compiling every module) stays out of a relay profile.
import { readFileSync } from 'node:fs';
import { relative, resolve } from 'node:path';

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
}

interface CpuProfile {
  nodes: ProfileNode[];
  startTime: number;
  endTime: number;
  samples: number[];
  timeDeltas: number[];
}

export interface SelfTime {
  name: string;
  /** Where: path relative to the repository (or the URL), 1-based line. */
  where: string;
  micros: number;
  share: number;
}

export interface ProfileSummary {
  /** µs of samples counted (inside the window, idle left out). */
  busyMicros: number;
  idleMicros: number;
  /** Whether the window was used (false: it held no sample and the whole profile is summed). */
  windowed: boolean;
  top: SelfTime[];
  /** Self time per source file (or pseudo-node) of the busy time, largest first. */
  files: { where: string; micros: number; share: number }[];
}

const ROOT = resolve(import.meta.dirname, '../..');

function whereOf(url: string, line: number): string {
  if (!url) return '';
  const path = url.startsWith('file://') ? decodeURIComponent(new URL(url).pathname) : url;
  const shown = path.startsWith(ROOT) ? relative(ROOT, path) : path.replace(/^.*\/node_modules\//, 'node_modules/');
  // tsx's output of a module can be one line: a line 1 says nothing then.
  return line > 0 ? `${shown}:${line + 1}` : shown;
}

/** Self time per function of the profile at `path`, the `count` largest; `window` in µs of the monotonic clock. */
export function summariseProfile(path: string, count: number, window?: { from: number; to: number }): ProfileSummary {
  const profile = JSON.parse(readFileSync(path, 'utf8')) as CpuProfile;
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const tally = (inWindow: boolean) => {
    const self = new Map<number, number>();
    let at = profile.startTime;
    for (let i = 0; i < profile.samples.length; i++) {
      at += profile.timeDeltas[i] ?? 0;
      // A sample's time covers the interval up to the next sample.
      const spent = profile.timeDeltas[i + 1] ?? 0;
      if (inWindow && window && (at < window.from || at > window.to)) continue;
      const id = profile.samples[i]!;
      self.set(id, (self.get(id) ?? 0) + spent);
    }
    return self;
  };
  let windowed = window !== undefined;
  let self = tally(windowed);
  if (self.size === 0) {
    windowed = false;
    self = tally(false);
  }
  const functions = new Map<string, SelfTime>();
  const files = new Map<string, number>();
  let busy = 0;
  let idle = 0;
  for (const [id, micros] of self) {
    const frame = byId.get(id)!.callFrame;
    if (frame.functionName === '(idle)') {
      idle += micros;
      continue;
    }
    busy += micros;
    const name = frame.functionName || '(anonymous)';
    const where = whereOf(frame.url, frame.lineNumber);
    const key = `${name} ${where}`;
    const entry = functions.get(key) ?? { name, where, micros: 0, share: 0 };
    entry.micros += micros;
    functions.set(key, entry);
    const file = whereOf(frame.url, -1) || name;
    files.set(file, (files.get(file) ?? 0) + micros);
  }
  const top = [...functions.values()].sort((a, b) => b.micros - a.micros).slice(0, count);
  for (const entry of top) entry.share = busy > 0 ? entry.micros / busy : 0;
  const fileRows = [...files]
    .map(([where, micros]) => ({ where, micros, share: busy > 0 ? micros / busy : 0 }))
    .sort((a, b) => b.micros - a.micros)
    .slice(0, count);
  return { busyMicros: busy, idleMicros: idle, windowed, top, files: fileRows };
}
