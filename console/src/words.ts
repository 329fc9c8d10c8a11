import type { components } from './api/schema.js';

type Grant = components['schemas']['Grant'];

/** Each permission in words, as the console shows it (docs/api-keys.md has the full table). */
export const PERMISSION_WORDS: Record<string, string> = {
  '*': 'everything the user may do',
  'api-keys:create': 'create API keys',
  'api-keys:read': 'list API keys',
  'api-keys:revoke': 'revoke API keys',
  'billing:read': 'see billing and usage',
  'billing:manage': 'change the plan',
  'experts:write': 'publish and update Experts',
  'experts:delete': 'delete Expert versions',
  'projects:operate': 'connect and disconnect environments',
  'agents:run': 'run agents',
  'audit:read': 'read the audit log',
  'events:read': 'read the events',
  'members:read': 'list members',
  'projects:read': 'list projects',
  'integrations:read': 'list integrations',
  'projects:write': 'create, rename and delete projects, environments and agents',
  'integrations:manage': 'register and remove OAuth integrations',
  'organization:manage': 'rename the organization',
  'members:manage': 'invite, change and remove members',
  'webhooks:manage': 'manage webhook endpoints',
  'publish-policy:read': 'read the publish policy and pending approvals',
  'publish-policy:manage': 'change the publish policy',
  'experts:approve': 'approve or reject Expert versions that widen access',
};

const count = (n: number, one: string) => `${n} ${one}${n === 1 ? '' : 's'}`;

/**
 * What a permission allows on a project or an environment grant: less than on the whole organization
 * (a project grant's projects:write renames and deletes those projects, never creates one; docs/api-keys.md).
 */
const SCOPED_WORDS: Record<'project' | 'environment', Record<string, string>> = {
  project: {
    'projects:read': 'read them',
    'projects:write': 'rename and delete them and change their environments and agents',
    'projects:operate': 'connect and disconnect their environments',
  },
  environment: {
    'projects:read': 'read them',
    'projects:write': 'rename or delete them',
    'projects:operate': 'connect and disconnect them',
  },
};

export function grantInWords(grant: Grant): string {
  const scoped = grant.type === 'project' || grant.type === 'environment' ? SCOPED_WORDS[grant.type] : {};
  const what = grant.permissions.map((p) => scoped[p] ?? PERMISSION_WORDS[p] ?? p).join(', ');
  switch (grant.type) {
    case 'organization':
      return `Whole organization: ${what}`;
    case 'project':
      return `${count(grant.projectIds.length, 'project')}: ${what}`;
    case 'environment':
      return `${count(grant.environmentIds.length, 'environment')}: ${what}`;
    case 'agent':
      return `${count(grant.agentIds.length, 'agent')}: ${what}`;
  }
}

export const USAGE_WORDS: Record<string, string> = {
  apiRequests: 'API requests this period',
  expertVersions: 'Expert versions',
  apiKeys: 'API keys',
  connections: 'Connections',
};
