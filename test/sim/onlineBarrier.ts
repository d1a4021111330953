// What a game's records tell the session as they come (its mod's hooks, simGame.ts). A loaded resync save makes the
// game one of the session's world. And the online barrier check: a world game stepping out of t must hold every
// present world peer's promise (its last Clock's `safe`) above t; a step past one is kept as a barrier break (the
// first few), which invariants.ts's barrier check reports.
import { noteLoad } from './hostReload.ts';
import type { GameRecord } from './simGame.ts';
import type { SimGameSlot } from './session.ts';
import { excuseWritten, type SimSession } from './sessionContext.ts';

/** Takes the slot's game's records: loads and authority values as they happen, each step against the barrier. */
export const onRecord = (s: SimSession, slot: SimGameSlot) => (r: GameRecord): void => {
  if (r.what === 'load') {
    // a loaded resync save makes it a game of the session's world (a hot join, a return, a repair): what it sent as
    // an outsider is the outsider checks' (refused by the host), and its promise starts again from its next Clock
    if (!slot.holdsWorld) {
      excuseWritten(slot);
      slot.staleSpans.push({ from: 0, to: r.order }); // what it applied as an outsider was its own world's
    }
    if (slot.written) slot.written.promised = -1;
    slot.holdsWorld = true;
    if (s.divergence?.index === slot.index && slot.staleT !== undefined) s.happened.add('divergenceLoaded');
    slot.staleT = undefined;
    if (slot.staleFrom !== undefined) slot.staleSpans.push({ from: slot.staleFrom, to: r.order });
    slot.staleFrom = undefined;
    s.happened.add('loaded');
    noteLoad(s, slot, r);
  }
  if (r.what === 'authority') s.happened.add('authority');
  // (a game back without a catch-up runs on its old world until its load: not the session's, no barrier to keep)
  if (r.what !== 'step' || !slot.holdsWorld || !slot.present || slot.staleFrom !== undefined) return;
  slot.stepsChecked += 1;
  const games = s.lockstepContext().games;
  for (const peer of s.slots) {
    if (peer === slot || !peer.present || !peer.holdsWorld || peer.written === undefined || peer.id === undefined) continue;
    if (games[peer.id]?.stalled !== undefined) continue; // the host's promise stands in for a stalled game
    if (games[peer.id] === undefined) continue; // away (its connection dropped): the host took it out of the game
    if (!games[peer.id]!.hasWorld || !games[peer.id]!.ready) continue; // back but waiting for a round's load (an outsider now)
    if (peer.written.promised < 0) continue; // no Clock since its load: the session stands at the round's pause
    if (r.t >= peer.written.promised && slot.barrierBreaks.length < 5) {
      slot.barrierBreaks.push({ t: r.t, peer: peer.index, promised: peer.written.promised });
    }
  }
};
