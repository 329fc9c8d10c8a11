import { randomBytes } from 'node:crypto';
import type { Grant } from '../../src/modules/auth/grants.js';
import type { TestServer } from './server.js';

type AccountType = 'personal' | 'personalPlus' | 'team';

export interface TestOrganization {
  id: string;
  slug: string;
  ownerId: string;
  /** The owner's organization-wide `*` key. */
  ownerKey: string;
}

export const uniqueSlug = (prefix = 'org') => `${prefix}-${randomBytes(4).toString('hex')}`;

/**
 * Limits far above what any test writes, set as an operator would (PUT …/limits): suites about keys,
 * publishing or connections are not about plan limits. Tests of the limits pass `{ planLimits: 'plan' }`.
 */
const GENEROUS_LIMITS = { apiRequests: 1e9, expertVersions: 1e6, apiKeys: 1e6, connections: 1e6 };

export async function createOrganization(
  server: TestServer,
  accountType: AccountType = 'personal',
  slug = uniqueSlug(),
  options: { planLimits?: 'plan' | 'generous' } = {},
): Promise<TestOrganization> {
  const res = await server.admin<{
    data: { organization: { id: string }; owner: { id: string }; apiKey: { key: string } };
  }>('POST', '/admin/v1/organizations', {
    slug,
    name: slug,
    accountType,
    owner: { email: `owner@${slug}.test` },
  });
  if (res.status !== 201) throw new Error(`createOrganization: ${res.status} ${res.text}`);
  if (options.planLimits !== 'plan') {
    const limits = await server.admin('PUT', `/admin/v1/organizations/${slug}/limits`, GENEROUS_LIMITS);
    if (limits.status !== 200) throw new Error(`createOrganization limits: ${limits.status} ${limits.text}`);
  }
  return {
    id: res.body.data.organization.id,
    slug,
    ownerId: res.body.data.owner.id,
    ownerKey: res.body.data.apiKey.key,
  };
}

export async function addMember(server: TestServer, org: TestOrganization, role: 'admin' | 'member') {
  const email = `${role}-${randomBytes(3).toString('hex')}@${org.slug}.test`;
  const res = await server.admin<{ data: { user: { id: string } } }>(
    'POST',
    `/admin/v1/organizations/${org.id}/members`,
    {
      email,
      role,
    },
  );
  if (res.status !== 201) throw new Error(`addMember: ${res.status} ${res.text}`);
  return res.body.data.user.id;
}

export async function createKey(
  server: TestServer,
  org: TestOrganization,
  userId: string,
  grants: Grant = { type: 'organization', permissions: ['*'] },
  extra: Record<string, unknown> = {},
): Promise<{ id: string; key: string }> {
  const res = await server.admin<{ data: { id: string; key: string } }>(
    'POST',
    `/admin/v1/organizations/${org.id}/users/${userId}/api-keys`,
    { grants, ...extra },
  );
  if (res.status !== 201) throw new Error(`createKey: ${res.status} ${res.text}`);
  return res.body.data;
}

export async function createProject(server: TestServer, org: TestOrganization, slug = uniqueSlug('proj')) {
  const res = await server.admin<{
    data: { project: { id: string }; environments: Array<{ id: string; name: string }> };
  }>('POST', `/admin/v1/organizations/${org.id}/projects`, { slug, name: slug });
  if (res.status !== 201) throw new Error(`createProject: ${res.status} ${res.text}`);
  return res.body.data;
}
