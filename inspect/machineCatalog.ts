// Every chart of machines/ as the inspector draws it, by machine id: the very machine objects the launchers run,
// serialized (inspect/chartDefinition.ts). A recorded trace names each actor's machine id (`@xstate.actor`
// `machine`), so the page finds its chart here; a live launcher adds any chart not listed from the running actor's
// own logic (inspect/liveFeed.ts). A new chart in machines/ gets one line here.
import { setup } from 'xstate';
import { catchUpMachine } from '../machines/catchUp.ts';
import { checksumRoundsMachine } from '../machines/checksumRounds.ts';
import { hostHandshakeMachine } from '../machines/hostHandshake.ts';
import { lockstepMachine } from '../machines/lockstep.ts';
import { pacingMachine } from '../machines/pacing.ts';
import { pauseOrderMachine } from '../machines/pauseOrder.ts';
import { playerHandshakeMachine } from '../machines/playerHandshake.ts';
import { playerSlotMachine } from '../machines/playerSlot.ts';
import { reportMachine } from '../machines/report.ts';
import { reportPartMachine } from '../machines/reportPart.ts';
import { resyncMachine } from '../machines/resync.ts';
import { sessionRouterChart } from '../machines/sessionRouter.ts';
import { chartOf, type ChartDefinition } from './chartDefinition.ts';

/** The session's root chart with its actions only named: the same states and transitions as actors/ runs. */
const sessionRouterShape = setup({}).createMachine(sessionRouterChart as never);

const MACHINES: readonly unknown[] = [
  sessionRouterShape,
  hostHandshakeMachine,
  playerHandshakeMachine,
  playerSlotMachine,
  catchUpMachine,
  lockstepMachine,
  pauseOrderMachine,
  pacingMachine,
  reportMachine,
  reportPartMachine,
  checksumRoundsMachine,
  resyncMachine,
];

/** Machine id → its chart. */
export function machineCatalog(): Record<string, ChartDefinition> {
  const out: Record<string, ChartDefinition> = {};
  for (const machine of MACHINES) {
    const chart = chartOf(machine);
    if (chart) out[chart.id] = chart;
  }
  return out;
}
