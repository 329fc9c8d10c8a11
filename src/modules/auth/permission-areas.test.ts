import { describe, expect, it } from 'vitest';
import { PERMISSIONS } from './grants.js';
import { levelPermissions, levelsWithin, PERMISSION_AREAS } from './permission-areas.js';
import { ROLE_PERMISSIONS } from './permissions.js';

describe('permission areas', () => {
  it('hold every permission in exactly one level', () => {
    const listed = PERMISSION_AREAS.flatMap((area) => area.levels.flatMap((level) => level.adds));
    expect([...listed].sort()).toEqual([...PERMISSIONS].sort());
  });

  it("give each role exactly its permissions when it takes every area's highest offered level", () => {
    for (const [role, allowed] of Object.entries(ROLE_PERMISSIONS)) {
      const granted = PERMISSION_AREAS.flatMap((area) => {
        const offered = levelsWithin(area, allowed);
        return offered.length ? levelPermissions(area, offered.at(-1)!.id) : [];
      });
      expect(new Set(granted), role).toEqual(new Set(allowed));
    }
  });

  it('make a level include the levels below it, and nothing for an unknown level', () => {
    const projects = PERMISSION_AREAS.find((area) => area.id === 'projects')!;
    expect(levelPermissions(projects, 'write')).toEqual([
      'projects:read',
      'projects:operate',
      'projects:write',
    ]);
    expect(levelPermissions(projects, 'nope')).toEqual([]);
    expect(levelsWithin(projects, new Set(['projects:read', 'projects:write'])).map((l) => l.id)).toEqual([
      'read',
    ]);
  });
});
