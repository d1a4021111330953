// The session's root chart, `sessionRouter` (systemId `host` / `player`): its states and transitions, here so that
// the inspector draws it like every other chart (inspect/ may import only machines/ and protocol/). Its children are
// adapter actors (`conn:<id>` over a transport's Connection port, `link` over the file link), whose logic and event
// types are actors/ports.ts's: so the chart is given here as a config whose actions are only named, and
// actors/sessionRouter.ts supplies the implementations and the types (`setup(...).createMachine(sessionRouterChart)`).
// One state, Routing: spawn a connection's actor on `conn.accepted`, stop it on `conn.closed`, forward every child's
// report (`conn.*`, `link.*`) as an emitted event, a failing child as `adapter.failed`.

/** The actions the chart names; actors/sessionRouter.ts implements each. */
export type SessionRouterActionName =
  | 'spawnConnection'
  | 'stopConnection'
  | 'spawnLink'
  | 'stopLink'
  | 'forward'
  | 'childFailed'
  | 'forgetChild';

export const sessionRouterChart = {
  id: 'sessionRouter',
  initial: 'Routing',
  states: {
    Routing: {
      description: 'Routes the adapter actors\' reports (conn:<id>, link) to the session as emitted events.',
      on: {
        'conn.accepted': { actions: 'spawnConnection' },
        'conn.frame': { actions: 'forward' },
        'conn.violation': { actions: 'forward' },
        'conn.closed': { actions: ['forward', 'stopConnection'] },
        'link.attach': { actions: 'spawnLink' },
        'link.detach': { actions: 'stopLink' },
        'link.line': { actions: 'forward' },
        'link.notice': { actions: 'forward' },
        'link.problem': { actions: 'forward' },
        // A child's error would fail the chart (XState fails a parent on an unhandled error event of a child).
        'xstate.error.actor.*': { actions: ['childFailed', 'forgetChild'] },
      },
    },
  },
} as const;
