import { describe, expect, it } from 'vitest';
import { type Grant, grantSchema, PERMISSIONS, type Permission } from './grants.js';
import { can, grantReaches, type Principal, type Role, type Scope } from './permissions.js';

const ORG = 'org_a';
const OTHER_ORG = 'org_b';
const ME = 'user_me';

// docs/api-keys.md, transcribed: which role holds which permission.
const ROLE_TABLE: Record<Role, Permission[]> = {
  owner: [...PERMISSIONS],
  admin: PERMISSIONS.filter((p) => p !== 'experts:delete' && p !== 'organization:manage'),
  member: [
    'api-keys:create',
    'api-keys:read',
    'api-keys:revoke',
    'billing:read',
    'experts:write',
    'projects:operate',
    'agents:run',
    'members:read',
    'projects:read',
    'integrations:read',
    'publish-policy:read',
    'mcp:read',
  ],
};

const scopes = {
  organization: { kind: 'organization', organizationId: ORG },
  projectIn: { kind: 'project', organizationId: ORG, projectId: 'p1' },
  projectOut: { kind: 'project', organizationId: ORG, projectId: 'p2' },
  environmentIn: { kind: 'environment', organizationId: ORG, projectId: 'p1', environmentId: 'e1' },
  environmentOtherProject: { kind: 'environment', organizationId: ORG, projectId: 'p2', environmentId: 'e9' },
  agentIn: { kind: 'agent', organizationId: ORG, projectId: 'p1', agentId: 'a1' },
  agentOut: { kind: 'agent', organizationId: ORG, projectId: 'p2', agentId: 'a2' },
  agentInEnvironment: {
    kind: 'agent',
    organizationId: ORG,
    projectId: 'p2',
    agentId: 'a2',
    environmentId: 'e1',
  },
  ownKey: { kind: 'apiKey', organizationId: ORG, ownerUserId: ME },
  othersKey: { kind: 'apiKey', organizationId: ORG, ownerUserId: 'user_other' },
} satisfies Record<string, Scope>;
type ScopeName = keyof typeof scopes;

// Each grant variant, and the scopes it reaches (for the permissions it lists).
const GRANT_TABLE: Array<{ grant: Grant; reaches: ScopeName[] }> = [
  { grant: { type: 'organization', permissions: ['*'] }, reaches: Object.keys(scopes) as ScopeName[] },
  {
    grant: { type: 'project', projectIds: ['p1'], permissions: ['projects:operate', 'agents:run'] },
    reaches: ['projectIn', 'environmentIn', 'agentIn'],
  },
  {
    grant: { type: 'environment', environmentIds: ['e1'], permissions: ['projects:operate', 'agents:run'] },
    reaches: ['environmentIn', 'agentInEnvironment'],
  },
  { grant: { type: 'agent', agentIds: ['a1'], permissions: ['agents:run'] }, reaches: ['agentIn'] },
];

const principal = (role: Role, grants: Grant, organizationId = ORG): Principal => ({
  kind: 'apiKey',
  apiKeyId: 'key_1',
  userId: ME,
  organizationId,
  role,
  grants,
});

const grantLists = (grant: Grant, permission: Permission) =>
  grant.type === 'organization'
    ? grant.permissions.includes('*') || (grant.permissions as string[]).includes(permission)
    : (grant.permissions as string[]).includes(permission);

describe('can(): grants ∩ role, every combination', () => {
  for (const role of ['owner', 'admin', 'member'] as const) {
    for (const { grant, reaches } of GRANT_TABLE) {
      for (const [scopeName, scope] of Object.entries(scopes) as Array<[ScopeName, Scope]>) {
        for (const permission of PERMISSIONS) {
          const memberOnOthersKey = role === 'member' && scopeName === 'othersKey';
          const expected =
            ROLE_TABLE[role].includes(permission) &&
            grantLists(grant, permission) &&
            reaches.includes(scopeName) &&
            !memberOnOthersKey;
          it(`${role} · ${grant.type} grant · ${scopeName} · ${permission} → ${expected}`, () => {
            expect(can(principal(role, grant), permission, scope)).toBe(expected);
          });
        }
      }
    }
  }
});

describe('can(): organization boundaries and sessions', () => {
  it('denies everything in another organization, whatever the grant and role', () => {
    for (const { grant } of GRANT_TABLE) {
      for (const permission of PERMISSIONS) {
        for (const scope of Object.values(scopes)) {
          expect(can(principal('owner', grant, OTHER_ORG), permission, scope)).toBe(false);
        }
      }
    }
  });

  it('gives a console session exactly its role', () => {
    for (const role of ['owner', 'admin', 'member'] as const) {
      const session: Principal = {
        kind: 'session',
        sessionId: 's',
        csrfToken: 't',
        userId: ME,
        organizationId: ORG,
        role,
      };
      for (const permission of PERMISSIONS) {
        expect(can(session, permission, scopes.organization)).toBe(ROLE_TABLE[role].includes(permission));
      }
      expect(can(session, 'api-keys:read', scopes.othersKey)).toBe(role !== 'member');
    }
  });

  it('an organization grant with a list gives only what it lists', () => {
    const grant: Grant = { type: 'organization', permissions: ['billing:read'] };
    expect(can(principal('owner', grant), 'billing:read', scopes.organization)).toBe(true);
    expect(can(principal('owner', grant), 'billing:manage', scopes.organization)).toBe(false);
  });
});

describe('grantReaches(): where a grant reaches, whatever the permission', () => {
  it('matches the scopes each grant variant reaches, and never another organization', () => {
    for (const { grant, reaches } of GRANT_TABLE) {
      for (const [scopeName, scope] of Object.entries(scopes) as Array<[ScopeName, Scope]>) {
        // Reaching is about where, not what: the member's own-keys rule belongs to can().
        expect(grantReaches(principal('member', grant), scope), `${grant.type} · ${scopeName}`).toBe(
          reaches.includes(scopeName),
        );
        expect(grantReaches(principal('owner', grant, OTHER_ORG), scope)).toBe(false);
      }
    }
  });

  it('an organization grant reaches everything even without the permission asked; audit:read is organization-only', () => {
    const narrow = principal('owner', { type: 'organization', permissions: ['billing:read'] });
    expect(grantReaches(narrow, scopes.environmentIn)).toBe(true);
    expect(can(narrow, 'projects:operate', scopes.environmentIn)).toBe(false);
    expect(grantSchema.safeParse({ type: 'organization', permissions: ['audit:read'] }).success).toBe(true);
    expect(
      grantSchema.safeParse({ type: 'environment', environmentIds: ['e'], permissions: ['audit:read'] })
        .success,
    ).toBe(false);
  });
});

describe('grantSchema', () => {
  it.each([
    [{ type: 'organization', permissions: ['*'] }, true],
    [{ type: 'organization', permissions: ['nope:do'] }, false],
    [{ type: 'organization', permissions: [] }, false],
    [{ type: 'project', projectIds: ['p'], permissions: ['projects:operate'] }, true],
    [{ type: 'project', projectIds: ['p'], permissions: ['billing:read'] }, false],
    [{ type: 'project', projectIds: [], permissions: ['agents:run'] }, false],
    [{ type: 'project', projectIds: ['p', 'p'], permissions: ['agents:run'] }, false],
    [{ type: 'agent', agentIds: ['a'], permissions: ['agents:run'] }, true],
    [{ type: 'agent', agentIds: ['a'], permissions: ['projects:operate'] }, false],
    [{ type: 'environment', environmentIds: ['e'], permissions: ['agents:run', 'projects:operate'] }, true],
    [{ type: 'environment', environmentIds: ['e'], permissions: ['*'] }, false],
    [{ type: 'team', permissions: ['*'] }, false],
    [{ type: 'organization', permissions: ['*'], projectIds: ['x'] }, false],
  ])('%j valid: %s', (grant, valid) => {
    expect(grantSchema.safeParse(grant).success).toBe(valid);
  });
});
