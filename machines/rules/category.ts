// Action category and permissions (spec "Permissions", "Action category and verdict"): the host normalises
// `category` and sets `allowed` from the PlayerSet of that category; the host's own game (0) is in every set.
import { ACTION_CATEGORIES } from './lockstepTypes.ts';
import type { ActionCategory, PermissionsPayload, PlayerSet } from './lockstepTypes.ts';

const CATEGORIES: ReadonlySet<string> = new Set(ACTION_CATEGORIES);

/** "build", "bulldoze", "spend" or "other"; anything else (absent, another string, not a string) is "other". */
export function normaliseCategory(category: unknown): ActionCategory {
  return typeof category === 'string' && CATEGORIES.has(category) ? (category as ActionCategory) : 'other';
}

/**
 * Whether player `id` is in a PlayerSet. Game 0 always is; a missing set means everyone; a set of an unknown
 * shape (it cannot come from the decoder) restricts nothing, like a missing one.
 */
export function inPlayerSet(set: PlayerSet | undefined, id: number): boolean {
  if (id === 0 || set === undefined || set === 'everyone') return true;
  if (set === 'hostOnly') return false;
  return Array.isArray(set.only) ? set.only.includes(id) : true;
}

/** Whether an action of `category` from player `from` is allowed (`other` unless the `other` set restricts it). */
export function isAllowed(permissions: Partial<PermissionsPayload>, category: ActionCategory, from: number): boolean {
  return inPlayerSet(permissions[category], from);
}

/** Whether player `from` may change the speed (a SpeedRequest from outside the set is dropped). */
export function mayChangeSpeed(permissions: Partial<PermissionsPayload>, from: number): boolean {
  return inPlayerSet(permissions.speed, from);
}
