// Draws a chart's layout (inspect/graphLayout.ts) as SVG, the active states highlighted; clicking a state shows its
// description. Browser only (the inspector page).
import { activeStateIds, type ChartDefinition } from '../chartDefinition.ts';
import { layoutChart, type Layout } from '../graphLayout.ts';

const SVG = 'http://www.w3.org/2000/svg';
const layouts = new Map<string, Layout>();

function el<K extends keyof SVGElementTagNameMap>(name: K, attrs: Record<string, string | number>, parent?: Element): SVGElementTagNameMap[K] {
  const node = document.createElementNS(SVG, name);
  for (const [k, v] of Object.entries(attrs)) node.setAttribute(k, String(v));
  parent?.appendChild(node);
  return node;
}

/** The SVG of `chart` with the states of `value` active. `onState` hears a click on a state. */
export function chartSvg(chart: ChartDefinition, value: unknown, onState: (id: string) => void): SVGSVGElement {
  let layout = layouts.get(chart.id);
  if (!layout) layouts.set(chart.id, (layout = layoutChart(chart)));
  const margin = 8;
  const labelRoom = 160;
  const width = layout.width + 2 * margin + labelRoom;
  const height = layout.height + 2 * margin;
  const svg = el('svg', { width, height, viewBox: `${-margin} ${-margin} ${width} ${height}`, 'data-chart': chart.id });
  const defs = el('defs', {}, svg);
  const marker = el('marker', { id: 'arrow', viewBox: '0 0 10 10', refX: 10, refY: 5, markerWidth: 7, markerHeight: 7, orient: 'auto-start-reverse' }, defs);
  el('path', { d: 'M 0 0 L 10 5 L 0 10 z', fill: '#6b7488' }, marker);
  const active = activeStateIds(chart, value);
  const boxes = Object.values(layout.boxes).sort((a, b) => a.depth - b.depth);
  for (const box of boxes) {
    const state = chart.states[box.id]!;
    const cls = ['state', box.compound ? 'compound' : 'leaf', active.has(box.id) && box.depth > 0 ? 'active' : ''].join(' ');
    const g = el('g', { class: cls, 'data-state': box.id }, svg);
    el('rect', { x: box.x, y: box.y, width: box.w, height: box.h, rx: 6 }, g);
    const text = el('text', { x: box.x + 8, y: box.y + (box.compound ? 16 : box.h / 2 + 4) }, g);
    text.textContent = state.type === 'final' ? `${box.label} ◉` : box.label;
    const title = el('title', {}, g);
    title.textContent = state.description ?? box.label;
    g.addEventListener('click', (e) => {
      e.stopPropagation();
      onState(box.id);
    });
  }
  for (const edge of layout.edges) {
    const g = el('g', { class: 'edge' }, svg);
    if (edge.self) {
      const { from, to } = edge;
      el('path', { d: `M ${from.x} ${from.y} C ${from.x + 30} ${from.y - 10}, ${to.x + 30} ${to.y + 10}, ${to.x} ${to.y}`, 'marker-end': 'url(#arrow)' }, g);
    } else {
      el('line', { x1: edge.from.x, y1: edge.from.y, x2: edge.to.x, y2: edge.to.y, 'marker-end': 'url(#arrow)' }, g);
    }
    const label = el('text', { x: edge.label.x + (edge.self ? 30 : 0), y: edge.label.y }, g);
    label.textContent = edge.transition.guard ? `${edge.transition.event} [${edge.transition.guard}]` : edge.transition.event;
  }
  return svg;
}
