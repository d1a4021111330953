// Permissions (spec "Permissions"): each field a PlayerSet — "everyone", "hostOnly" or {only: [ids]}; a
// missing field means everyone; the host's own game (id 0) is in every set; `other` is written only while
// it restricts something, so a host that never touches it sends the same message as before.
import type { Payloads, PlayerSet } from '../../protocol/messages/index.ts';

export type Permissions = Payloads['Permissions'];
export type PermissionName = 'build' | 'bulldoze' | 'spend' | 'speed' | 'other';

export const EVERYONE: Permissions = { build: 'everyone', bulldoze: 'everyone', spend: 'everyone', speed: 'everyone' };

export function inSet(set: PlayerSet | undefined, id: number): boolean {
  if (id === 0 || set === undefined || set === 'everyone') return true;
  if (set === 'hostOnly') return false;
  return set.only.includes(id);
}

export function allows(permissions: Permissions, what: PermissionName, id: number): boolean {
  return inSet(permissions[what], id);
}

/** The message to send: `other` left out while it is "everyone". */
export function permissionsMessage(permissions: Permissions): Permissions {
  const { other, ...rest } = permissions;
  return other === undefined || other === 'everyone' ? rest : { ...rest, other };
}

/** Parses the host's terminal form: "everyone", "host" / "hostOnly", or a comma list of ids ("1,3"). */
export function parsePlayerSet(text: string): PlayerSet | undefined {
  const t = text.trim();
  if (t === 'everyone' || t === 'all') return 'everyone';
  if (t === 'host' || t === 'hostOnly') return 'hostOnly';
  if (!/^\d+(,\d+)*$/.test(t)) return undefined;
  return { only: t.split(',').map(Number) };
}
