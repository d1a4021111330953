// The inspector page's script (bundled by inspect/pageBundle.ts): loads the charts and the session's mode, opens the
// socket for the trace lines (the backlog, then live lines), folds them into a SessionModel up to the timeline's
// cursor and renders the panes (./render.ts). Following (the default) keeps the cursor at the newest line; moving
// the timeline replays the trace from its start to the chosen line. In live mode the time left of pending delayed
// events counts down with the wall clock between lines.
import type { ChartDefinition } from '../chartDefinition.ts';
import { applyLine, emptyModel, modelAt, playerLabel, type SessionModel } from '../sessionModel.ts';
import { parseTrace, type TraceLine } from '../traceFormat.ts';
import { renderActors, renderChart, renderLog, renderPending, renderRounds, rel, syncOptions, type View } from './render.ts';
import { ROUND_ACTORS } from '../waitPanel.ts';

const $ = <T extends HTMLElement = HTMLElement>(id: string) => document.getElementById(id) as T;

const lines: TraceLine[] = [];
let charts: Record<string, ChartDefinition> = {};
let mode: 'live' | 'trace' = 'trace';
/** The model of every line (kept up to date as lines arrive). */
let latest: SessionModel = emptyModel();
let cursor = 0;
let follow = true;
let selected: string | undefined;
let pickedState: string | undefined;
let lastLineAt = performance.now();

function currentModel(): SessionModel {
  return cursor >= lines.length ? latest : modelAt(lines, cursor);
}

function render(): void {
  const model = currentModel();
  const atEnd = cursor >= lines.length;
  const origin = lines.find((l) => typeof l.t === 'number')?.t ?? 0;
  const now = mode === 'live' && atEnd ? model.now + (performance.now() - lastLineAt) : model.now;
  if (selected === undefined || !model.actors.has(selected)) selected = defaultActor(model);
  const view: View = {
    model,
    now,
    origin,
    charts,
    selected,
    pickedState,
    filters: { actor: $<HTMLSelectElement>('filter-actor').value, type: $<HTMLInputElement>('filter-type').value.trim(), player: $<HTMLSelectElement>('filter-player').value },
    cursor: cursor - 1,
  };
  $('clock').textContent = rel(now, origin);
  renderActors(view, (name) => {
    selected = name;
    pickedState = undefined;
    render();
  });
  renderChart(view, (state) => {
    pickedState = state;
    render();
  });
  renderRounds(view);
  renderPending(view);
  syncOptions($<HTMLSelectElement>('filter-actor'), [...latest.actors.keys()].map((a) => [a, a]));
  syncOptions($<HTMLSelectElement>('filter-player'), [...latest.players.keys()].sort((a, b) => a - b).map((id) => [String(id), playerLabel(latest, id)]));
  renderLog(view);
  const range = $<HTMLInputElement>('timeline');
  range.max = String(lines.length);
  range.value = String(cursor);
  $('position').textContent = `line ${cursor} of ${lines.length}${cursor > 0 ? ` at ${rel(lines[cursor - 1]!.t, origin)}` : ''}`;
  $<HTMLInputElement>('follow').checked = follow;
}

/** The actor shown first: a round that waits for someone, else the first round, else the first actor. */
function defaultActor(model: SessionModel): string | undefined {
  for (const name of ROUND_ACTORS) if (model.actors.has(name)) return name;
  return model.actors.keys().next().value;
}

function addLines(texts: readonly string[]): void {
  const parsed = parseTrace(texts.join('\n'));
  for (const line of parsed) {
    applyLine(latest, line, lines.length);
    lines.push(line);
  }
  if (parsed.length > 0) lastLineAt = performance.now();
  if (follow) cursor = lines.length;
}

function moveTo(position: number): void {
  cursor = Math.max(0, Math.min(lines.length, position));
  follow = cursor >= lines.length;
  render();
}

/** The cursor just after the previous (-1) or next (+1) line that changed an actor's state. */
function stepState(direction: -1 | 1): void {
  if (direction < 0) {
    for (let i = cursor - 2; i >= 0; i--) if (lines[i]!.type === '@xstate.snapshot') return moveTo(i + 1);
    return moveTo(0);
  }
  for (let i = cursor; i < lines.length; i++) if (lines[i]!.type === '@xstate.snapshot') return moveTo(i + 1);
  moveTo(lines.length);
}

function connect(): void {
  const socket = new WebSocket(`ws://${location.host}/live`);
  $('connection').textContent = 'connecting';
  let first = true;
  socket.onopen = () => {
    $('connection').textContent = mode === 'live' ? 'live' : 'loaded';
  };
  socket.onmessage = (message) => {
    const data = JSON.parse(String(message.data)) as { kind: 'lines'; lines: string[] } | { kind: 'charts'; charts: Record<string, ChartDefinition> };
    if (data.kind === 'charts') charts = { ...data.charts, ...charts };
    else {
      if (first) {
        // A reconnect gets the whole backlog again: start over.
        lines.length = 0;
        latest = emptyModel();
        first = false;
      }
      addLines(data.lines);
    }
    render();
  };
  socket.onclose = () => {
    $('connection').textContent = mode === 'live' ? 'disconnected (retrying)' : 'loaded';
    if (mode === 'live') setTimeout(connect, 1000);
  };
}

async function start(): Promise<void> {
  const [session, known] = await Promise.all([
    fetch('/session.json').then((r) => r.json() as Promise<{ mode: 'live' | 'trace'; title: string }>),
    fetch('/charts.json').then((r) => r.json() as Promise<Record<string, ChartDefinition>>),
  ]);
  mode = session.mode;
  charts = known;
  $('title').textContent = session.title;
  $('mode').textContent = mode === 'live' ? 'live' : 'recorded trace';
  $('step-back').addEventListener('click', () => stepState(-1));
  $('step-forward').addEventListener('click', () => stepState(1));
  $('line-back').addEventListener('click', () => moveTo(cursor - 1));
  $('line-forward').addEventListener('click', () => moveTo(cursor + 1));
  $('timeline').addEventListener('input', () => moveTo(Number($<HTMLInputElement>('timeline').value)));
  $('follow').addEventListener('change', () => {
    follow = $<HTMLInputElement>('follow').checked;
    if (follow) moveTo(lines.length);
  });
  for (const id of ['filter-actor', 'filter-type', 'filter-player']) $(id).addEventListener('input', render);
  connect();
  // The clock and the time left move on between lines in live mode.
  setInterval(() => {
    if (mode === 'live' && cursor >= lines.length) {
      renderRounds(viewForTick());
      renderPending(viewForTick());
    }
  }, 500);
}

function viewForTick(): View {
  const origin = lines[0]?.t ?? 0;
  const now = latest.now + (performance.now() - lastLineAt);
  $('clock').textContent = rel(now, origin);
  return { model: latest, now, origin, charts, selected, pickedState, filters: { actor: '', type: '', player: '' }, cursor: -1 };
}

void start();
