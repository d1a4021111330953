import { readFileSync, readdirSync } from 'node:fs';
const dir = process.argv[2];
const f = readdirSync(dir).find((n) => n.endsWith('.cpuprofile'));
const p = JSON.parse(readFileSync(dir + '/' + f, 'utf8'));
const byId = new Map(p.nodes.map((n) => [n.id, n]));
const parent = new Map();
for (const n of p.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
const self = new Map();
for (let i = 0; i < p.samples.length; i++) self.set(p.samples[i], (self.get(p.samples[i]) ?? 0) + (p.timeDeltas[i] ?? 0));
// inclusive per function key (counted once per stack)
const incl = new Map();
let total = 0;
// restrict to stacks containing the relay: any frame in hostSession/connection
let tt = p.startTime; const times = p.timeDeltas.map((d) => (tt += d));
const from = p.startTime + (p.endTime - p.startTime) * 0.5;
const self2 = new Map(); for (let i = 0; i < p.samples.length; i++) if (times[i] >= from) self2.set(p.samples[i], (self2.get(p.samples[i]) ?? 0) + (p.timeDeltas[i] ?? 0));
for (const [id, t] of self2) {
  const keys = new Set();
  let cur = id;
  while (cur !== undefined) {
    const n = byId.get(cur);
    const cf = n.callFrame;
    keys.add(`${cf.functionName || '(anon)'} ${cf.url.replace(/.*\/main\//, '')}:${cf.lineNumber + 1}`);
    cur = parent.get(cur);
  }
  const name = byId.get(id).callFrame.functionName;
  if (name === '(idle)' || name === '(program)') continue;
  total += t;
  for (const k of keys) incl.set(k, (incl.get(k) ?? 0) + t);
}
const rows = [...incl].sort((a, b) => b[1] - a[1]).filter(([k]) => !/^\(root\)/.test(k));
const filter = process.argv[3] ? new RegExp(process.argv[3]) : null;
for (const [k, t] of rows.filter(([k]) => !filter || filter.test(k)).slice(0, Number(process.argv[4] ?? 60))) console.log((100 * t / total).toFixed(1).padStart(6), k);
