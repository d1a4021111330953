// Renders the inspector page's panes from a SessionModel (inspect/sessionModel.ts): the actors table, the chart of
// the selected actor with its active state's description, the round panels (inspect/waitPanel.ts), the pending
// delayed events with their time left, and the filtered event log. Browser only.
import type { ChartDefinition } from '../chartDefinition.ts';
import { activeStateIds } from '../chartDefinition.ts';
import { playerLabel, type SessionModel } from '../sessionModel.ts';
import { delayName, formatLeft, waitPanels } from '../waitPanel.ts';
import { chartSvg } from './chartSvg.ts';

export interface View {
  model: SessionModel;
  /** The session clock now: the model's, or (live) moved on by the wall time since the last line. */
  now: number;
  /** The first line's clock: times are shown relative to it. */
  origin: number;
  charts: Record<string, ChartDefinition>;
  selected: string | undefined;
  /** The state clicked in the chart (its description shown instead of the active one's). */
  pickedState: string | undefined;
  filters: { actor: string; type: string; player: string };
  /** The index of the line at the cursor (highlighted in the log). */
  cursor: number;
}

const $ = <T extends HTMLElement = HTMLElement>(id: string) => document.getElementById(id) as T;

export const rel = (t: number, origin: number) => `${((t - origin) / 1000).toFixed(3)} s`;

function row(cells: (string | number)[], attrs: Record<string, string> = {}): HTMLTableRowElement {
  const tr = document.createElement('tr');
  for (const [k, v] of Object.entries(attrs)) tr.setAttribute(k, v);
  for (const c of cells) {
    const td = document.createElement('td');
    td.textContent = String(c);
    tr.appendChild(td);
  }
  return tr;
}

export function renderActors(v: View, select: (name: string) => void): void {
  const body = $('actors').querySelector('tbody')!;
  body.replaceChildren();
  for (const a of v.model.actors.values()) {
    const tr = row([a.name, a.machine ?? '', a.status === 'active' ? a.state : `${a.state} (${a.status})`, rel(a.since, v.origin)], { 'data-actor': a.name });
    if (a.status !== 'active') tr.classList.add('stopped');
    if (a.name === v.selected) tr.classList.add('selected');
    tr.addEventListener('click', () => select(a.name));
    body.appendChild(tr);
  }
}

export function renderChart(v: View, pick: (state: string) => void): void {
  const holder = $('chart');
  const actor = v.selected === undefined ? undefined : v.model.actors.get(v.selected);
  const chart = actor?.machine === undefined ? undefined : v.charts[actor.machine];
  $('chart-title').textContent = actor ? `${actor.name}${actor.machine ? ` — ${actor.machine}` : ''}: ${actor.state || actor.status}` : '';
  if (!actor || !chart) {
    holder.replaceChildren(document.createTextNode(actor ? 'no chart for this actor (an adapter actor, or a chart this page does not know)' : 'select an actor'));
    $('description').textContent = '';
    return;
  }
  holder.replaceChildren(chartSvg(chart, actor.value, pick));
  const active = [...activeStateIds(chart, actor.value)].filter((id) => id !== chart.id);
  const shown = v.pickedState !== undefined && chart.states[v.pickedState] ? v.pickedState : active[active.length - 1];
  const state = shown === undefined ? undefined : chart.states[shown];
  const handled = chart.transitions.filter((t) => t.source === shown).map((t) => t.event);
  $('description').textContent = state
    ? `${state.id}${shown === active[active.length - 1] ? ' (active)' : ''}: ${state.description ?? '(no description)'}${handled.length ? `\nhandles: ${[...new Set(handled)].join(', ')}` : ''}`
    : '';
}

export function renderRounds(v: View): void {
  const holder = $('rounds');
  holder.replaceChildren();
  const model = { ...v.model, now: v.now };
  for (const p of waitPanels(model)) {
    const div = document.createElement('div');
    div.className = 'round';
    div.setAttribute('data-round', p.actor);
    const line = (cls: string, text: string) => {
      const e = document.createElement('div');
      e.className = cls;
      e.textContent = text;
      div.appendChild(e);
    };
    line('name', `${p.actor}: ${p.state || p.status}`);
    line('since', `since ${rel(p.since, v.origin)} (${formatLeft(v.now - p.since)} ago)`);
    line('waits', p.waitingFor.length ? `waits for ${p.waitingFor.map((w) => w.label).join(', ')}` : 'waits for no one');
    for (const t of p.timers) line('timer', `${t.actor} ${t.event}: ${formatLeft(t.left)} left`);
    holder.appendChild(div);
  }
  if (!holder.firstChild) holder.textContent = 'no round running';
}

export function renderPending(v: View): void {
  const body = $('pending').querySelector('tbody')!;
  body.replaceChildren();
  const list = [...v.model.pending.values()].sort((a, b) => a.due - b.due);
  for (const p of list) body.appendChild(row([p.actor, delayName(p.event), rel(p.due, v.origin), formatLeft(p.due - v.now)], { 'data-pending': p.actor }));
}

export function renderLog(v: View): void {
  const body = $('log').querySelector('tbody')!;
  const { actor, type, player } = v.filters;
  const entries = v.model.log.filter(
    (e) => (actor === '' || e.actor === actor) && (type === '' || e.type.includes(type)) && (player === '' || e.player === Number(player)),
  );
  const shown = entries.slice(-500);
  body.replaceChildren(
    ...shown.map((e) => {
      const tr = row([rel(e.t, v.origin), e.actor, e.kind, delayName(e.type), e.source ?? '', e.player === undefined ? '' : playerLabel(v.model, e.player)]);
      if (e.index === v.cursor) tr.classList.add('current');
      return tr;
    }),
  );
}

/** Keeps a <select>'s options to `values` (first option "all" stays), the choice kept. */
export function syncOptions(select: HTMLSelectElement, values: [string, string][]): void {
  const current = select.value;
  const wanted = JSON.stringify(values);
  if (select.dataset.values === wanted) return;
  select.dataset.values = wanted;
  const all = select.options[0]!;
  select.replaceChildren(all, ...values.map(([value, label]) => new Option(label, value)));
  select.value = values.some(([value]) => value === current) ? current : '';
}
