// The inspector's chart serialization (inspect/chartDefinition.ts) and layered layout (inspect/graphLayout.ts), on
// the real charts of machines/ (inspect/machineCatalog.ts): every state gets a box inside its parent's, siblings do
// not overlap, the initial child stands in the first column and a state reached from it further right, every
// targeted transition is an edge, delayed transitions read `after <delay>`.
import { describe, expect, it } from 'vitest';
import { activeStateIds, chartOf, eventName, type ChartDefinition } from '../../inspect/chartDefinition.ts';
import { border, columnsOf, layoutChart, type Box } from '../../inspect/graphLayout.ts';
import { machineCatalog } from '../../inspect/machineCatalog.ts';
import { setup } from 'xstate';

const catalog = machineCatalog();
const inside = (inner: Box, outer: Box) =>
  inner.x >= outer.x && inner.y >= outer.y && inner.x + inner.w <= outer.x + outer.w && inner.y + inner.h <= outer.y + outer.h;
const overlap = (a: Box, b: Box) => a.x < b.x + b.w && b.x < a.x + a.w && a.y < b.y + b.h && b.y < a.y + a.h;

describe('the charts of machines/', () => {
  it('are all in the catalog, the session router included', () => {
    expect(Object.keys(catalog).sort()).toEqual(
      ['catchUp', 'checksumRounds', 'hostHandshake', 'lockstep', 'pacing', 'pauseOrder', 'playerHandshake', 'playerSlot', 'report', 'reportPart', 'resync', 'sessionRouter'].sort(),
    );
    expect(Object.keys(catalog.sessionRouter!.states)).toEqual(['sessionRouter', 'sessionRouter.Routing']);
  });

  it('keep descriptions, delayed transitions and guards', () => {
    const slot = catalog.playerSlot!;
    expect(slot.states['playerSlot.Away']?.description).toBeTruthy();
    const delayed = slot.transitions.find((t) => t.event === 'after reconnectWindow');
    expect(delayed).toMatchObject({ source: 'playerSlot.Away', targets: ['playerSlot.Released'] });
    expect(slot.transitions.some((t) => t.guard === 'isSilent')).toBe(true);
  });

  it('name the active states of a nested value', () => {
    const ids = activeStateIds(catalog.pauseOrder!, { Paused: 'WaitingForStops' });
    expect([...ids].sort()).toEqual(['pauseOrder', 'pauseOrder.Paused', 'pauseOrder.Paused.WaitingForStops']);
  });

  it('is undefined for logic that is not a state machine', () => {
    expect(chartOf({ transition: () => 0 })).toBeUndefined();
    expect(eventName('xstate.after.joinDeadline.hostHandshake.Handshaking')).toBe('after joinDeadline');
    expect(eventName('')).toBe('always');
  });
});

describe('layoutChart', () => {
  for (const [id, chart] of Object.entries(catalog)) {
    it(`lays out ${id}: boxes nest, siblings apart, one edge per target`, () => {
      const layout = layoutChart(chart);
      expect(Object.keys(layout.boxes).sort()).toEqual(Object.keys(chart.states).sort());
      for (const state of Object.values(chart.states)) {
        const box = layout.boxes[state.id]!;
        if (state.parent !== undefined) expect(inside(box, layout.boxes[state.parent]!)).toBe(true);
        for (const other of state.children) {
          for (const sibling of state.children) {
            if (other !== sibling) expect(overlap(layout.boxes[other]!, layout.boxes[sibling]!)).toBe(false);
          }
        }
      }
      const targeted = chart.transitions.reduce((n, t) => n + t.targets.length, 0);
      expect(layout.edges).toHaveLength(targeted);
    });
  }

  const chain: ChartDefinition = chartOf(
    setup({}).createMachine({
      id: 'm',
      initial: 'A',
      states: { C: { on: { back: 'A' } }, B: { on: { go: 'C' } }, A: { on: { go: 'B' } }, Lonely: {} },
    }),
  )!;

  it('puts the initial child first and each next state one column further', () => {
    expect(columnsOf(chain, 'm')).toEqual([['m.A'], ['m.B'], ['m.C'], ['m.Lonely']]);
    const { boxes } = layoutChart(chain);
    expect(boxes['m.A']!.x).toBeLessThan(boxes['m.B']!.x);
    expect(boxes['m.B']!.x).toBeLessThan(boxes['m.C']!.x);
  });

  it('starts and ends edges on the box borders', () => {
    const box: Box = { id: 'b', label: 'b', x: 0, y: 0, w: 100, h: 40, depth: 1, compound: false };
    expect(border(box, { x: 200, y: 20 })).toEqual({ x: 100, y: 20 });
    expect(border(box, { x: 50, y: -100 })).toEqual({ x: 50, y: 0 });
  });
});
