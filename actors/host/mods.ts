// The mod list check (lockstep.md "Mod list", spec "Mod list"): Join's `mods` is a list of {id, version};
// a difference → Reject `mods` with {missing, extra, differ}; a player that sends no list while the host
// has one → Reject `version` (the player's FeverLink3 sends no mod list).
import type { ModEntry, Payloads } from '../../protocol/messages/index.ts';

export type { ModEntry };

type RejectPayload = Payloads['Reject'];

export function checkMods(hostMods: ModEntry[] | undefined, playerMods: ModEntry[] | undefined): RejectPayload | undefined {
  if (hostMods === undefined) return undefined;
  if (playerMods === undefined) return { reason: 'version', detail: "the player's FeverLink3 sends no mod list" };
  const theirs = new Map(playerMods.map((m) => [m.id, m.version]));
  const ours = new Map(hostMods.map((m) => [m.id, m.version]));
  const missing = hostMods.filter((m) => !theirs.has(m.id));
  const extra = playerMods.filter((m) => !ours.has(m.id));
  const differ = hostMods
    .filter((m) => theirs.has(m.id) && theirs.get(m.id) !== m.version)
    .map((m) => ({ id: m.id, host: m.version, player: theirs.get(m.id)! }));
  if (missing.length + extra.length + differ.length === 0) return undefined;
  const parts = [
    missing.length ? `missing ${missing.map((m) => m.id).join(', ')}` : '',
    extra.length ? `extra ${extra.map((m) => m.id).join(', ')}` : '',
    differ.length ? `other version of ${differ.map((m) => m.id).join(', ')}` : '',
  ].filter(Boolean);
  return { reason: 'mods', detail: parts.join('; '), mods: { missing, extra, differ } };
}
