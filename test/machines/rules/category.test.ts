// Action category and permissions (spec "Permissions", "Action category and verdict").
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { inPlayerSet, isAllowed, mayChangeSpeed, normaliseCategory } from '../../../machines/rules/category.ts';
import { ACTION_CATEGORIES } from '../../../machines/rules/lockstepTypes.ts';
import type { PermissionsPayload } from '../../../machines/rules/lockstepTypes.ts';

describe('normaliseCategory', () => {
  it('keeps the four categories and makes everything else "other"', () => {
    for (const c of ['build', 'bulldoze', 'spend', 'other']) expect(normaliseCategory(c)).toBe(c);
    for (const c of [undefined, null, '', 'Build', 'terraform', 7, {}, ['build'], 'toString', '__proto__']) {
      expect(normaliseCategory(c)).toBe('other');
    }
  });

  it('always gives one of the four', () => {
    // The four names (and near misses) mixed into anything, so that every answer is reached, not only 'other'.
    const seen = new Map<string, number>();
    fc.assert(
      fc.property(
        fc.oneof(fc.constantFrom('build', 'bulldoze', 'spend', 'other', 'Build', ' build', 'spend ', ''), fc.anything()),
        (x) => {
          const category = normaliseCategory(x);
          expect(['build', 'bulldoze', 'spend', 'other']).toContain(category);
          seen.set(category, (seen.get(category) ?? 0) + 1);
        },
      ),
      { numRuns: 400 },
    );
    // About 25 each of build, bulldoze and spend and 325 other in 400 runs.
    for (const category of ['build', 'bulldoze', 'spend']) expect(seen.get(category) ?? 0, category).toBeGreaterThanOrEqual(8);
    expect(seen.get('other') ?? 0).toBeGreaterThanOrEqual(200);
  });
});

describe('isAllowed', () => {
  const permissions: PermissionsPayload = {
    build: 'everyone',
    bulldoze: 'hostOnly',
    spend: { only: [1, 3] },
    speed: { only: [2] },
  };

  it('reads the set of the category', () => {
    expect(isAllowed(permissions, 'build', 5)).toBe(true);
    expect(isAllowed(permissions, 'bulldoze', 1)).toBe(false);
    expect(isAllowed(permissions, 'spend', 3)).toBe(true);
    expect(isAllowed(permissions, 'spend', 2)).toBe(false);
  });

  it('allows other unless the other set restricts it', () => {
    expect(isAllowed(permissions, 'other', 9)).toBe(true);
    expect(isAllowed({ ...permissions, other: 'hostOnly' }, 'other', 9)).toBe(false);
    expect(isAllowed({ ...permissions, other: { only: [9] } }, 'other', 9)).toBe(true);
  });

  it('treats a missing field as everyone', () => {
    expect(isAllowed({}, 'bulldoze', 4)).toBe(true);
  });

  it('always allows the host’s own game', () => {
    // Every combination (16), not a random pick of them.
    const sets: PermissionsPayload['build'][] = ['everyone', 'hostOnly', { only: [] }, { only: [1, 2] }];
    let checked = 0;
    for (const set of sets) {
      for (const category of ACTION_CATEGORIES) {
        expect(isAllowed({ [category]: set }, category, 0)).toBe(true);
        checked++;
      }
    }
    expect(checked).toBe(sets.length * ACTION_CATEGORIES.length);
  });

  it('decides speed requests from the speed set', () => {
    expect(mayChangeSpeed(permissions, 2)).toBe(true);
    expect(mayChangeSpeed(permissions, 1)).toBe(false);
    expect(mayChangeSpeed(permissions, 0)).toBe(true);
    expect(inPlayerSet(undefined, 7)).toBe(true);
  });
});
