import { forbidden } from '../../http/errors.js';
import { type Grant, PERMISSIONS, type Permission } from './grants.js';

export type Role = 'owner' | 'admin' | 'member';

const ALL = new Set<Permission>(PERMISSIONS);

export const ROLE_PERMISSIONS: Record<Role, ReadonlySet<Permission>> = {
  owner: ALL,
  // Deleting Expert versions and renaming the organization are the owner's alone.
  admin: new Set(
    PERMISSIONS.filter(
      (permission) => permission !== 'experts:delete' && permission !== 'organization:manage',
    ),
  ),
  member: new Set<Permission>([
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
  ]),
};

/** Members manage their own API keys only; owners and admins manage every key of the organization. */
const OWN_KEYS_ONLY: Record<Role, boolean> = { owner: false, admin: false, member: true };

interface PrincipalBase {
  userId: string;
  organizationId: string;
  /** The user's current role, read at authentication time, so a demotion applies to its keys at once. */
  role: Role;
}
export interface ApiKeyPrincipal extends PrincipalBase {
  kind: 'apiKey';
  apiKeyId: string;
  grants: Grant;
}
export interface SessionPrincipal extends PrincipalBase {
  kind: 'session';
  sessionId: string;
  csrfToken: string;
}
export type Principal = ApiKeyPrincipal | SessionPrincipal;

/**
 * Who performed a change, for the audit trail and the events: a member's credential, the operator (admin
 * token), Cadre itself (`system`; `userId`: the person it acted for, when known, e.g. who opened a payment
 * provider's page), or the organization's SCIM provisioning (`scim`: its identity provider, through the SCIM
 * token).
 */
export type Actor =
  | { kind: 'admin' }
  | { kind: 'scim' }
  | { kind: 'system'; userId?: string | null }
  | Principal;

// The request pipeline (src/http/auth.ts) carries this principal on each request: declared there, defined here.
// (Inside the block, `Principal` would name src/http/auth.ts's own alias: hence the second name.)
type AuthenticatedPrincipal = ApiKeyPrincipal | SessionPrincipal;
declare module '../../http/auth.js' {
  interface PrincipalTypes {
    principal: AuthenticatedPrincipal;
  }
}

/** Owners and admins see and manage every API key of the organization; members only their own. */
export const managesAllApiKeys = (principal: Principal): boolean => !OWN_KEYS_ONLY[principal.role];

/** What a permission is checked against. Every scope names the organization that owns the resource. */
export type Scope =
  | { kind: 'organization'; organizationId: string }
  | { kind: 'project'; organizationId: string; projectId: string }
  | { kind: 'environment'; organizationId: string; projectId: string; environmentId: string }
  | { kind: 'agent'; organizationId: string; projectId: string; agentId: string; environmentId?: string }
  | { kind: 'apiKey'; organizationId: string; ownerUserId: string };

/** May this principal do `permission` on `scope`? Effective rights = the key's grants ∩ the user's role. */
export function can(principal: Principal, permission: Permission, scope: Scope): boolean {
  if (scope.organizationId !== principal.organizationId) return false;
  if (!roleAllows(principal, permission, scope)) return false;
  return principal.kind === 'session' || grantAllows(principal.grants, permission, scope);
}

/**
 * 403 unless `principal` may do `permission` on `scope` (its own organization when none is named). Services
 * call it first thing: permissions are decided there, not in routes, so the admin API and the CLI get the same.
 */
export function requirePermission(principal: Principal, permission: Permission, scope?: Scope): void {
  const target = scope ?? { kind: 'organization', organizationId: principal.organizationId };
  if (!can(principal, permission, target)) throw forbidden(`Missing permission ${permission}`);
}

function roleAllows(principal: Principal, permission: Permission, scope: Scope): boolean {
  if (!ROLE_PERMISSIONS[principal.role].has(permission)) return false;
  if (scope.kind === 'apiKey' && OWN_KEYS_ONLY[principal.role]) return scope.ownerUserId === principal.userId;
  return true;
}

function grantAllows(grant: Grant, permission: Permission, scope: Scope): boolean {
  switch (grant.type) {
    case 'organization':
      return grant.permissions.includes('*') || (grant.permissions as string[]).includes(permission);
    case 'project':
      return (
        (grant.permissions as string[]).includes(permission) &&
        (scope.kind === 'project' || scope.kind === 'environment' || scope.kind === 'agent') &&
        grant.projectIds.includes(scope.projectId)
      );
    case 'environment':
      return (
        (grant.permissions as string[]).includes(permission) &&
        (scope.kind === 'environment' || scope.kind === 'agent') &&
        scope.environmentId !== undefined &&
        grant.environmentIds.includes(scope.environmentId)
      );
    case 'agent':
      return (
        (grant.permissions as string[]).includes(permission) &&
        scope.kind === 'agent' &&
        grant.agentIds.includes(scope.agentId)
      );
  }
}

/**
 * Does the credential's grant reach this scope at all, whatever the permission? A resource outside a key's
 * project, environment or agent grant reads as absent (404); one it reaches but may not act on is 403.
 * Sessions and organization grants reach the whole organization.
 */
export function grantReaches(principal: Principal, scope: Scope): boolean {
  if (scope.organizationId !== principal.organizationId) return false;
  if (principal.kind === 'session') return true;
  const grant = principal.grants;
  switch (grant.type) {
    case 'organization':
      return true;
    case 'project':
      return 'projectId' in scope && grant.projectIds.includes(scope.projectId);
    case 'environment':
      return (
        'environmentId' in scope &&
        scope.environmentId !== undefined &&
        grant.environmentIds.includes(scope.environmentId)
      );
    case 'agent':
      return scope.kind === 'agent' && grant.agentIds.includes(scope.agentId);
  }
}
