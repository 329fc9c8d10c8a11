import type { Permission } from './grants.js';

/**
 * The permissions grouped by area, each area with access levels from least to most (as fine-grained tokens
 * offer them): a level holds its own permissions and every lower level's. The console's key form and
 * `cadre keys create --access area=level` both read this one list; every permission is in exactly one level,
 * and each role's permissions are a whole level of each area (a unit test keeps both true).
 */
export interface PermissionLevel {
  id: string;
  name: string;
  /** What this level adds to the levels below it. */
  adds: readonly Permission[];
}
export interface PermissionArea {
  id: string;
  name: string;
  levels: readonly PermissionLevel[];
}

const read = (adds: Permission[]): PermissionLevel => ({ id: 'read', name: 'Read', adds });
const write = (adds: Permission[]): PermissionLevel => ({ id: 'write', name: 'Read and write', adds });

export const PERMISSION_AREAS: readonly PermissionArea[] = [
  {
    id: 'projects',
    name: 'Projects',
    levels: [
      read(['projects:read']),
      { id: 'operate', name: 'Read and connect environments', adds: ['projects:operate'] },
      { id: 'write', name: 'Read, connect and change', adds: ['projects:write'] },
    ],
  },
  { id: 'agents', name: 'Agents', levels: [{ id: 'run', name: 'Run', adds: ['agents:run'] }] },
  {
    id: 'experts',
    name: 'Experts',
    levels: [
      { id: 'write', name: 'Publish', adds: ['experts:write'] },
      { id: 'approve', name: 'Publish and approve', adds: ['experts:approve'] },
      { id: 'delete', name: 'Publish, approve and delete', adds: ['experts:delete'] },
    ],
  },
  {
    id: 'publish-policy',
    name: 'Publish policy',
    levels: [read(['publish-policy:read']), write(['publish-policy:manage'])],
  },
  {
    id: 'api-keys',
    name: 'API keys',
    levels: [read(['api-keys:read']), write(['api-keys:create', 'api-keys:revoke'])],
  },
  { id: 'members', name: 'Members', levels: [read(['members:read']), write(['members:manage'])] },
  {
    id: 'integrations',
    name: 'Integrations',
    levels: [read(['integrations:read']), write(['integrations:manage'])],
  },
  { id: 'mcp', name: 'MCP catalog', levels: [read(['mcp:read']), write(['mcp:write'])] },
  { id: 'webhooks', name: 'Webhooks', levels: [write(['webhooks:manage'])] },
  { id: 'events', name: 'Events', levels: [read(['events:read'])] },
  { id: 'audit', name: 'Audit log', levels: [read(['audit:read'])] },
  { id: 'billing', name: 'Billing', levels: [read(['billing:read']), write(['billing:manage'])] },
  {
    id: 'organization',
    name: 'Organization settings',
    levels: [{ id: 'write', name: 'Rename', adds: ['organization:manage'] }],
  },
];

/** The permissions a level gives: its own and every lower level's. */
export function levelPermissions(area: PermissionArea, levelId: string): Permission[] {
  const index = area.levels.findIndex((level) => level.id === levelId);
  if (index < 0) return [];
  return area.levels.slice(0, index + 1).flatMap((level) => level.adds);
}

/**
 * The levels of `area` whose every permission is in `allowed` (a role's permissions, narrowed to what a grant
 * variant carries): what a form may offer. An area with none is not offered at all.
 */
export function levelsWithin(area: PermissionArea, allowed: ReadonlySet<string>): PermissionLevel[] {
  return area.levels.filter((level) => levelPermissions(area, level.id).every((p) => allowed.has(p)));
}
