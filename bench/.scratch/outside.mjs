import { readFileSync, readdirSync } from 'node:fs';
const dir = process.argv[2];
const f = readdirSync(dir).find((n) => n.endsWith('.cpuprofile'));
const p = JSON.parse(readFileSync(dir + '/' + f, 'utf8'));
const byId = new Map(p.nodes.map((n) => [n.id, n]));
const parent = new Map();
for (const n of p.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
// window: last 40% of samples by time
let t = p.startTime; const times = p.timeDeltas.map((d) => (t += d));
const from = p.startTime + (p.endTime - p.startTime) * Number(process.argv[3] ?? 0.5);
const out = new Map(); let total = 0, inside = 0;
for (let i = 0; i < p.samples.length; i++) {
  if (times[i] < from) continue;
  const d = p.timeDeltas[i] ?? 0;
  let cur = p.samples[i]; const stack = [];
  while (cur !== undefined) { const cf = byId.get(cur).callFrame; stack.push(cf.functionName || '(anon)'); cur = parent.get(cur); }
  if (stack[0] === '(idle)' || stack[0] === '(program)') continue;
  total += d;
  if (stack.includes('serveConn')) { inside += d; continue; }
  const key = stack.slice(0, 6).reverse().join(' > ');
  const top = stack.slice(-4).reverse().join('>') + ' ... ' + stack[0];
  out.set(top, (out.get(top) ?? 0) + d);
}
console.log('inside serveConn', (100 * inside / total).toFixed(1));
for (const [k, v] of [...out].sort((a, b) => b[1] - a[1]).slice(0, 30)) console.log((100 * v / total).toFixed(1).padStart(6), k);
