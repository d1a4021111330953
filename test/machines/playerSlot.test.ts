// The player slot chart on its own (spec lockstep.md "Leave and removal"): every state and timeout on a simulated
// clock; model paths from xstate/graph replayed on a live actor with every state and transition covered; and
// fast-check event sequences checked against a small reference model.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { createActor, SimulatedClock } from 'xstate';
import { getSimplePaths, toDirectedGraph, type DirectedGraphNode } from 'xstate/graph';
import {
  playerSlotMachine,
  RECONNECT_WINDOW_MS,
  SLOT_REASON,
  type PlayerSlotEmitted,
  type PlayerSlotEvent,
  type PlayerSlotInput,
} from '../../machines/playerSlot.ts';

const SILENCE_MS = 16_000;
const input: PlayerSlotInput = { id: 3, name: 'alice', silenceMs: SILENCE_MS };
const EMITTED = ['out.away', 'out.released', 'out.shutdown'] as const;

function start(machine = playerSlotMachine) {
  const clock = new SimulatedClock();
  const emitted: PlayerSlotEmitted[] = [];
  const actor = createActor(machine, { clock, input, systemId: 'slot:3' });
  for (const type of EMITTED) actor.on(type, (e) => emitted.push(e));
  actor.start();
  return { actor, clock, emitted, value: () => actor.getSnapshot().value };
}

const types = (emitted: PlayerSlotEmitted[]) => emitted.map((e) => e.type);

describe('player slot chart', () => {
  it('starts Connected and emits nothing', () => {
    const { value, emitted } = start();
    expect(value()).toBe('Connected');
    expect(emitted).toEqual([]);
  });

  it('a dropped connection holds the slot for exactly the reconnect window (300 s), then releases it', () => {
    const { actor, clock, emitted, value } = start();
    actor.send({ type: 'conn.closed', reason: 'peer-closed' });
    expect(value()).toBe('Away');
    expect(emitted).toEqual([{ type: 'out.away', id: 3, name: 'alice', reason: 'peer-closed' }]);
    clock.increment(RECONNECT_WINDOW_MS - 1);
    expect(value()).toBe('Away');
    clock.increment(1);
    expect(value()).toBe('Released');
    expect(emitted[1]).toEqual({ type: 'out.released', id: 3, name: 'alice', reason: SLOT_REASON.windowEnded });
    expect(actor.getSnapshot().status).toBe('done');
    expect(actor.getSnapshot().output).toEqual({ result: 'released', id: 3, reason: 'reconnect window ended' });
  });

  it('takes the window from the named delay `reconnectWindow` (the session passes HostOptions.reconnectWindowMs)', () => {
    const { actor, clock, value } = start(playerSlotMachine.provide({ delays: { reconnectWindow: 5_000 } }));
    actor.send({ type: 'conn.closed', reason: 'write-timeout' });
    clock.increment(4_999);
    expect(value()).toBe('Away');
    clock.increment(1);
    expect(value()).toBe('Released');
  });

  it('silence: a ping round finding the player not heard for more than silenceMs drops it as away', () => {
    const { actor, emitted, value } = start();
    actor.send({ type: 'ping.due', sinceHeard: 0 });
    actor.send({ type: 'ping.due', sinceHeard: SILENCE_MS });
    expect(value()).toBe('Connected');
    expect(emitted).toEqual([]);
    actor.send({ type: 'ping.due', sinceHeard: SILENCE_MS + 1 });
    expect(value()).toBe('Away');
    expect(emitted).toEqual([{ type: 'out.away', id: 3, name: 'alice', reason: 'silent' }]);
  });

  it('Leave releases the slot at once: no away, no Kicked', () => {
    const { actor, emitted, value } = start();
    actor.send({ type: 'recv.Leave' });
    expect(value()).toBe('Released');
    expect(emitted).toEqual([{ type: 'out.released', id: 3, name: 'alice', reason: 'left' }]);
  });

  it('a kick releases the slot at once with its reason and the Kicked to send', () => {
    const a = start();
    a.actor.send({ type: 'cmd.kick', reason: 'kicked', detail: 'rude' });
    expect(a.value()).toBe('Released');
    expect(a.emitted).toEqual([
      { type: 'out.released', id: 3, name: 'alice', reason: 'kicked', kicked: { reason: 'kicked', detail: 'rude' } },
    ]);
    const b = start();
    b.actor.send({ type: 'cmd.kick', reason: 'flood' });
    expect(b.emitted).toEqual([{ type: 'out.released', id: 3, name: 'alice', reason: 'flood', kicked: { reason: 'flood' } }]);
  });

  it('an away slot ignores kick, Leave, pings and a second close; only the window or shutdown ends it', () => {
    const { actor, emitted, value } = start();
    actor.send({ type: 'conn.closed', reason: 'peer-closed' });
    actor.send({ type: 'cmd.kick', reason: 'kicked' });
    actor.send({ type: 'recv.Leave' });
    actor.send({ type: 'ping.due', sinceHeard: 10 * SILENCE_MS });
    actor.send({ type: 'conn.closed', reason: 'again' });
    expect(value()).toBe('Away');
    expect(types(emitted)).toEqual(['out.away']);
  });

  it('shutdown: a connected player gets its Kicked (out.shutdown), an away one only loses its window; no PlayerLeft', () => {
    const a = start();
    a.actor.send({ type: 'cmd.shutdown', reason: 'shutdown', detail: 'the host ended the session' });
    expect(a.value()).toBe('Shutdown');
    expect(a.emitted).toEqual([{ type: 'out.shutdown', id: 3, name: 'alice', reason: 'shutdown', detail: 'the host ended the session' }]);
    expect(a.actor.getSnapshot().output).toEqual({ result: 'shutdown', id: 3, reason: 'shutdown' });

    const b = start();
    b.actor.send({ type: 'conn.closed', reason: 'peer-closed' });
    b.actor.send({ type: 'cmd.shutdown', reason: 'shutdown', detail: 'bye' });
    expect(b.value()).toBe('Shutdown');
    b.clock.increment(2 * RECONNECT_WINDOW_MS);
    expect(types(b.emitted)).toEqual(['out.away']);
  });

  it('every waiting state says what it waits for and on whom; the window is named', () => {
    const states = playerSlotMachine.root.states;
    for (const name of ['Connected', 'Away', 'Released', 'Shutdown'] as const) expect(states[name]!.description).toBeTruthy();
    expect(states.Connected!.description).toMatch(/context\.name.*Leave.*kick.*silent/s);
    expect(states.Away!.description).toMatch(/held for the reconnect window.*300 s.*for that player/s);
    expect(states.Away!.after.map((t) => t.delay)).toEqual(['reconnectWindow']);
  });
});

// ---- model paths ---------------------------------------------------------------------------------------------

const WINDOW = 1_000;
const machine = playerSlotMachine.provide({ delays: { reconnectWindow: WINDOW } });
/** The event XState raises when the window runs out (replayed as a clock step). */
const windowEvent = playerSlotMachine.root.states.Away!.after[0]!.eventType;

const modelEvents = [
  { type: 'conn.closed', reason: 'peer-closed' },
  { type: 'conn.resumed' },
  { type: 'ping.due', sinceHeard: SILENCE_MS },
  { type: 'ping.due', sinceHeard: SILENCE_MS + 1 },
  { type: 'recv.Leave' },
  { type: 'cmd.kick', reason: 'kicked', detail: 'rude' },
  { type: 'cmd.shutdown', reason: 'shutdown', detail: 'bye' },
  { type: windowEvent },
] as PlayerSlotEvent[];

function transitionsOf(node: DirectedGraphNode): string[] {
  return [
    ...node.edges.map((e) => `${e.source.key} --${e.transition.eventType}--> ${e.target.key}`),
    ...node.children.flatMap(transitionsOf),
  ];
}

describe('model paths (xstate/graph)', () => {
  const paths = getSimplePaths(machine, { input, events: modelEvents });
  const allTransitions = new Set(transitionsOf(toDirectedGraph(machine)));

  it('the chart has the transitions the spec names', () => {
    expect([...allTransitions].sort()).toEqual(
      [
        'Connected --conn.closed--> Away',
        'Connected --ping.due--> Away',
        'Connected --recv.Leave--> Released',
        'Connected --cmd.kick--> Released',
        'Connected --cmd.shutdown--> Shutdown',
        `Away --${windowEvent}--> Released`,
        'Away --cmd.shutdown--> Shutdown',
        'Away --conn.resumed--> Connected',
      ].sort(),
    );
  });

  it('replays every path on a live actor on a simulated clock, reaching every state and every transition', () => {
    const states = new Set<string>();
    const taken = new Set<string>();
    for (const path of paths) {
      const { actor, clock, emitted, value } = start(machine);
      let before = String(value());
      states.add(before);
      for (const step of path.steps) {
        const event = step.event as PlayerSlotEvent | { type: string };
        if (event.type === 'xstate.init') continue;
        const seen = emitted.length;
        if (event.type === windowEvent) clock.increment(WINDOW);
        else actor.send(event as PlayerSlotEvent);
        const after = String(value());
        expect(after).toBe(step.state.value);
        if (after !== before) taken.add(`${before} --${event.type}--> ${after}`);
        // Each transition emits what its target means: away once, released once, the Kicked at shutdown if connected.
        const out = types(emitted.slice(seen));
        const expected = after === before ? [] : after === 'Away' ? ['out.away'] : after === 'Released' ? ['out.released'] : before === 'Connected' ? ['out.shutdown'] : [];
        expect(out).toEqual(expected);
        states.add(after);
        before = after;
      }
      actor.stop();
    }
    // A simple path never comes back to a state it visited: the resume (Away → Connected) is replayed on its own.
    const back = start(machine);
    back.actor.send({ type: 'conn.closed', reason: 'peer-closed' });
    const seen = back.emitted.length;
    back.actor.send({ type: 'conn.resumed' });
    expect(back.value()).toBe('Connected');
    expect(back.emitted.length).toBe(seen); // nothing to tell: the session re-seats the player itself
    taken.add('Away --conn.resumed--> Connected');
    back.actor.stop();
    expect([...states].sort()).toEqual(['Away', 'Connected', 'Released', 'Shutdown']);
    expect([...taken].sort()).toEqual([...allTransitions].sort());
  });
});

// ---- command sequences -----------------------------------------------------------------------------------------

type Command = PlayerSlotEvent | { type: 'advance'; ms: number };

// Time and pings weighted up: a run that ends (released, shut down) takes no more transitions, and the window's
// release needs a drop followed by time.
const commandArb: fc.Arbitrary<Command> = fc.oneof(
  fc.record({ type: fc.constant('conn.closed' as const), reason: fc.constantFrom('peer-closed', 'write-timeout', 'reset') }),
  {
    arbitrary: fc.record({ type: fc.constant('ping.due' as const), sinceHeard: fc.integer({ min: 0, max: 2 * SILENCE_MS }) }),
    weight: 2,
  },
  fc.constant({ type: 'recv.Leave' as const }),
  fc.record({ type: fc.constant('cmd.kick' as const), reason: fc.constantFrom('kicked', 'flood'), detail: fc.constantFrom('x', undefined) }),
  fc.constant({ type: 'cmd.shutdown' as const, reason: 'shutdown', detail: 'bye' }),
  { arbitrary: fc.record({ type: fc.constant('advance' as const), ms: fc.integer({ min: 0, max: 2 * WINDOW }) }), weight: 4 },
);

describe('command sequences (fast-check)', () => {
  it('follows the reference model: held only after a drop, released once, never back, the window counted from the drop', () => {
    // Coverage: runs that took each transition of the model (checked against floors after the runs).
    const taken = new Map<string, number>();
    fc.assert(
      fc.property(fc.array(commandArb, { maxLength: 30 }), (commands) => {
        const run = new Set<string>();
        const { actor, clock, emitted, value } = start(machine);
        let model: 'Connected' | 'Away' | 'Released' | 'Shutdown' = 'Connected';
        let awayAt = 0;
        let now = 0;
        const expected: PlayerSlotEmitted['type'][] = [];
        for (const c of commands) {
          if (c.type === 'advance') {
            now += c.ms;
            clock.increment(c.ms);
            if (model === 'Away' && now - awayAt >= WINDOW) (model = 'Released'), expected.push('out.released'), run.add('Away -window-> Released');
            else if (model === 'Away' && c.ms > 0) run.add('Away -advance within the window-> Away');
          } else {
            // A done actor takes no events (XState warns); the session sends only to running slots too.
            if (actor.getSnapshot().status === 'active') actor.send(c);
            const from: string = model;
            if (model === 'Connected') {
              if (c.type === 'conn.closed' || (c.type === 'ping.due' && c.sinceHeard > SILENCE_MS)) {
                (model = 'Away'), (awayAt = now), expected.push('out.away');
              } else if (c.type === 'recv.Leave' || c.type === 'cmd.kick') (model = 'Released'), expected.push('out.released');
              else if (c.type === 'cmd.shutdown') (model = 'Shutdown'), expected.push('out.shutdown');
              else if (c.type === 'ping.due') run.add('Connected -ping.due heard lately-> Connected');
            } else if (model === 'Away' && c.type === 'cmd.shutdown') model = 'Shutdown';
            if (from !== model) run.add(`${from} -${c.type}-> ${model}`);
            else if (from !== 'Connected') run.add(`${from} ignores ${c.type}`);
          }
          expect(value()).toBe(model);
          expect(types(emitted)).toEqual(expected);
        }
        expect(actor.getSnapshot().status).toBe(model === 'Released' || model === 'Shutdown' ? 'done' : 'active');
        actor.stop();
        for (const key of run) taken.set(key, (taken.get(key) ?? 0) + 1);
      }),
      { numRuns: 300, seed: 20_240_601 },
    );
    // Every transition of the model in many runs, and events that change nothing while away or after the end
    // (measured with this seed, of 300 runs: the transitions 20–56 each, the window's release 38; the floors are
    // about half).
    const floors: [string, number][] = [
      ['Connected -conn.closed-> Away', 20],
      ['Connected -ping.due-> Away', 20],
      ['Connected -ping.due heard lately-> Connected', 25],
      ['Connected -recv.Leave-> Released', 25],
      ['Connected -cmd.kick-> Released', 25],
      ['Connected -cmd.shutdown-> Shutdown', 15],
      ['Away -window-> Released', 18],
      ['Away -advance within the window-> Away', 15],
      ['Away -cmd.shutdown-> Shutdown', 10],
      ['Away ignores recv.Leave', 8],
      ['Away ignores cmd.kick', 8],
      ['Released ignores conn.closed', 20],
      ['Shutdown ignores cmd.kick', 5],
    ];
    for (const [key, floor] of floors) expect(taken.get(key) ?? 0, key).toBeGreaterThanOrEqual(floor);
  });
});
