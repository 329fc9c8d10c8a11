import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectApiError } from './support/assertions.js';
import { runCli } from './support/cli-harness.js';
import {
  addMember,
  createKey,
  createOrganization,
  createProject,
  type TestOrganization,
} from './support/fixtures.js';
import { startServer, type TestServer } from './support/server.js';
import { login, setPassword } from './support/session.js';

type Member = {
  userId: string;
  name: string | null;
  email: string | null;
  role: string;
  lastActiveAt: string | null;
};
type Project = {
  id: string;
  slug: string;
  environments: Array<{ id: string; name: string }>;
  agents: Array<{ id: string; name: string }>;
};
type Page<T> = { data: T[]; pagination: { limit: number; hasMore: boolean; nextCursor: string | null } };

let server: TestServer;
let org: TestOrganization;
let other: TestOrganization;
let memberId: string;
let memberKey: string;
let projectA: { id: string; environments: Array<{ id: string }> };
let projectB: { id: string; environments: Array<{ id: string }> };
let agentA: string;

beforeAll(async () => {
  server = await startServer();
  org = await createOrganization(server, 'team');
  other = await createOrganization(server, 'team');
  memberId = await addMember(server, org, 'member');
  memberKey = (await createKey(server, org, memberId)).key;
  const a = await createProject(server, org);
  const b = await createProject(server, org);
  projectA = { id: a.project.id, environments: a.environments };
  projectB = { id: b.project.id, environments: b.environments };
  const agent = await server.admin<{ data: { agent: { id: string } } }>(
    'POST',
    `/admin/v1/projects/${projectA.id}/agents`,
    { name: 'support-bot' },
  );
  agentA = agent.body.data.agent.id;
});
afterAll(() => server.close());

const get = <T>(path: string, key: string | undefined) =>
  server.request<T>('GET', path, key === undefined ? {} : { key });

describe('GET /api/v1/me', () => {
  it('describes an API key: user, organization, role, effective permissions (grants ∩ role), the key', async () => {
    const narrow = await createKey(server, org, memberId, {
      type: 'organization',
      permissions: ['api-keys:read', 'billing:manage', 'members:read'],
    });
    const res = await get<{
      data: {
        user: { id: string };
        organization: { id: string; slug: string; accountType: string };
        role: string;
        permissions: string[];
        grants: unknown;
        authentication: { kind: string; apiKeyId: string; start: string };
      };
    }>('/api/v1/me', narrow.key);
    expect(res.status, res.text).toBe(200);
    expect(res.body.data.user.id).toBe(memberId);
    expect(res.body.data.organization).toMatchObject({ id: org.id, slug: org.slug, accountType: 'team' });
    expect(res.body.data.role).toBe('member');
    // billing:manage is granted but a member's role lacks it: not effective.
    expect(res.body.data.permissions).toEqual(['api-keys:read', 'members:read']);
    expect(res.body.data.authentication).toEqual({
      kind: 'apiKey',
      apiKeyId: narrow.id,
      start: narrow.key.slice(0, 12),
    });
  });

  it('describes a console session with its role’s permissions', async () => {
    await setPassword(server, org.ownerId);
    const session = await login(server, `owner@${org.slug}.test`);
    const res = await server.request<{
      data: { role: string; permissions: string[]; authentication: unknown };
    }>('GET', '/api/v1/me', { headers: { cookie: session.cookie } });
    expect(res.status, res.text).toBe(200);
    expect(res.body.data.role).toBe('owner');
    expect(res.body.data.permissions).toContain('experts:delete');
    expect(res.body.data.authentication).toEqual({ kind: 'session' });

    await setPassword(server, memberId);
    const memberEmail = (await server.context.tenancy.getUser(memberId)).email;
    const memberSession = await login(server, memberEmail);
    const asMember = await server.request<{ data: { role: string; permissions: string[] } }>(
      'GET',
      '/api/v1/me',
      {
        headers: { cookie: memberSession.cookie },
      },
    );
    expect(asMember.body.data.role).toBe('member');
    expect(asMember.body.data.permissions).not.toContain('billing:manage');
    expect(asMember.body.data.permissions).toContain('projects:read');
  });

  it('is 401 without a credential', async () => {
    expectApiError(await get('/api/v1/me', undefined), 401, 'unauthorized');
  });
});

describe('GET /api/v1/organizations/{org}/members', () => {
  it('lists members with roles; owners see every email, members only their own', async () => {
    const asOwner = await get<Page<Member>>(`/api/v1/organizations/${org.slug}/members`, org.ownerKey);
    expect(asOwner.status, asOwner.text).toBe(200);
    expect(asOwner.body.data.map((m) => m.role).sort()).toEqual(['member', 'owner']);
    expect(asOwner.body.data.every((m) => m.email !== null)).toBe(true);

    const asMember = await get<Page<Member>>(`/api/v1/organizations/${org.id}/members`, memberKey);
    expect(asMember.status).toBe(200);
    const owner = asMember.body.data.find((m) => m.role === 'owner')!;
    const self = asMember.body.data.find((m) => m.userId === memberId)!;
    expect(owner.email).toBeNull();
    expect(self.email).not.toBeNull();
    expect(asMember.text).not.toContain(`owner@${org.slug}.test`);
  });

  it('says when each was last active (a console sign-in here): to owners for all, to a member for themselves', async () => {
    const team = await createOrganization(server, 'team');
    const newcomer = await addMember(server, team, 'member');
    const newcomerKey = (await createKey(server, team, newcomer)).key;
    const list = async (key: string) => {
      const res = await get<Page<Member>>(`/api/v1/organizations/${team.slug}/members`, key);
      expect(res.status, res.text).toBe(200);
      return new Map(res.body.data.map((m) => [m.userId, m.lastActiveAt]));
    };
    // The newcomer has neither signed in nor used a key.
    expect((await list(team.ownerKey)).get(newcomer)).toBeNull();

    const before = Date.now();
    await setPassword(server, team.ownerId);
    await login(server, `owner@${team.slug}.test`);
    const asOwner = await list(team.ownerKey);
    expect(Date.parse(asOwner.get(team.ownerId) ?? '')).toBeGreaterThanOrEqual(before - 1000);
    expect(asOwner.get(newcomer)).toBeNull();

    await setPassword(server, newcomer);
    const members = await get<Page<Member>>(`/api/v1/organizations/${team.slug}/members`, team.ownerKey);
    const email = members.body.data.find((m) => m.userId === newcomer)?.email ?? '';
    await login(server, email);
    const asNewcomer = await list(newcomerKey);
    expect(asNewcomer.get(newcomer)).not.toBeNull();
    // Like an email: another member's activity is the owners' and admins' to see.
    expect(asNewcomer.get(team.ownerId)).toBeNull();
    expect((await list(team.ownerKey)).get(newcomer)).not.toBeNull();
  });

  it('pages with a cursor: every member exactly once', async () => {
    const big = await createOrganization(server, 'team');
    for (let i = 0; i < 4; i++) await addMember(server, big, 'member');
    const seen: string[] = [];
    let cursor: string | null = null;
    do {
      const res: { status: number; body: Page<Member> } = await get<Page<Member>>(
        `/api/v1/organizations/${big.id}/members?limit=2${cursor ? `&cursor=${cursor}` : ''}`,
        big.ownerKey,
      );
      expect(res.status).toBe(200);
      seen.push(...res.body.data.map((m) => m.userId));
      cursor = res.body.pagination.nextCursor;
    } while (cursor);
    expect(seen).toHaveLength(5);
    expect(new Set(seen).size).toBe(5);
    expectApiError(
      await get(`/api/v1/organizations/${big.id}/members?cursor=bogus`, big.ownerKey),
      422,
      'validation_failed',
    );
  });

  it('is 404 for another organization, 403 without members:read, 401 without a credential', async () => {
    expectApiError(await get(`/api/v1/organizations/${other.slug}/members`, org.ownerKey), 404, 'not_found');
    expectApiError(await get('/api/v1/organizations/no-such-org/members', org.ownerKey), 404, 'not_found');
    const narrow = await createKey(server, org, org.ownerId, {
      type: 'organization',
      permissions: ['billing:read'],
    });
    expectApiError(await get(`/api/v1/organizations/${org.id}/members`, narrow.key), 403, 'forbidden');
    expectApiError(await get(`/api/v1/organizations/${org.id}/members`, undefined), 401, 'unauthorized');
  });
});

describe('GET /api/v1/projects and /api/v1/projects/{projectId}', () => {
  it('lists every project with environments and agents for organization-wide rights', async () => {
    const res = await get<Page<Project>>('/api/v1/projects', memberKey);
    expect(res.status, res.text).toBe(200);
    expect(res.body.data.map((p) => p.id).sort()).toEqual([projectA.id, projectB.id].sort());
    const a = res.body.data.find((p) => p.id === projectA.id)!;
    expect(a.environments.map((e) => e.id).sort()).toEqual(projectA.environments.map((e) => e.id).sort());
    expect(a.agents.map((x) => x.id)).toEqual([agentA]);
    const one = await get<{ data: Project }>(`/api/v1/projects/${projectB.id}`, memberKey);
    expect(one.status).toBe(200);
    expect(one.body.data.id).toBe(projectB.id);
  });

  it('shows a project grant only its projects, an environment grant only its environment', async () => {
    const projectKey = await createKey(server, org, memberId, {
      type: 'project',
      projectIds: [projectB.id],
      permissions: ['projects:read'],
    });
    const listed = await get<Page<Project>>('/api/v1/projects', projectKey.key);
    expect(listed.body.data.map((p) => p.id)).toEqual([projectB.id]);
    expectApiError(await get(`/api/v1/projects/${projectA.id}`, projectKey.key), 404, 'not_found');

    const environment = projectA.environments[0]!.id;
    const environmentKey = await createKey(server, org, memberId, {
      type: 'environment',
      environmentIds: [environment],
      permissions: ['projects:read'],
    });
    const narrowed = await get<Page<Project>>('/api/v1/projects', environmentKey.key);
    expect(narrowed.body.data.map((p) => p.id)).toEqual([projectA.id]);
    expect(narrowed.body.data[0]!.environments.map((e) => e.id)).toEqual([environment]);
    expect(narrowed.body.data[0]!.agents).toEqual([]);
  });

  it('is 404 for another organization’s project, 403 without projects:read, 401 without a credential', async () => {
    const foreign = await createProject(server, other);
    expectApiError(await get(`/api/v1/projects/${foreign.project.id}`, org.ownerKey), 404, 'not_found');
    expect((await get<Page<Project>>('/api/v1/projects', org.ownerKey)).text).not.toContain(
      foreign.project.id,
    );
    const operateOnly = await createKey(server, org, memberId, {
      type: 'project',
      projectIds: [projectA.id],
      permissions: ['projects:operate'],
    });
    expectApiError(await get('/api/v1/projects', operateOnly.key), 403, 'forbidden');
    expectApiError(await get(`/api/v1/projects/${projectA.id}`, operateOnly.key), 403, 'forbidden');
    expectApiError(await get('/api/v1/projects', undefined), 401, 'unauthorized');
  });
});

describe('GET /api/v1/organizations/{org}/integrations', () => {
  it('lists integrations without secrets; 404 for another organization, 403 without integrations:read', async () => {
    const res = await get<{ data: unknown[] }>(`/api/v1/organizations/${org.id}/integrations`, memberKey);
    expect(res.status, res.text).toBe(200);
    expect(res.body.data).toEqual([]);
    expectApiError(await get(`/api/v1/organizations/${other.id}/integrations`, memberKey), 404, 'not_found');
    const narrow = await createKey(server, org, memberId, {
      type: 'organization',
      permissions: ['billing:read'],
    });
    expectApiError(await get(`/api/v1/organizations/${org.id}/integrations`, narrow.key), 403, 'forbidden');
    expectApiError(await get(`/api/v1/organizations/${org.id}/integrations`, undefined), 401, 'unauthorized');
  });
});

describe('the CLI', () => {
  const cli = (args: string[], key: string) =>
    runCli(args, { cwd: process.cwd(), env: { CADRE_URL: server.url, CADRE_API_KEY: key } });

  it('cadre whoami, projects list and members list, in words and as --json', async () => {
    const whoami = await cli(['whoami'], memberKey);
    expect(whoami.code, whoami.stderr).toBe(0);
    expect(whoami.stdout).toContain(org.slug);
    expect(whoami.stdout).toContain('member');
    const whoamiJson = JSON.parse((await cli(['whoami', '--json'], memberKey)).stdout) as { role: string };
    expect(whoamiJson.role).toBe('member');

    const projects = await cli(['projects', 'list'], memberKey);
    expect(projects.code, projects.stderr).toBe(0);
    expect(projects.stdout).toContain(projectA.id);
    expect(projects.stdout).toContain('support-bot');
    const projectsJson = JSON.parse(
      (await cli(['projects', 'list', '--json'], memberKey)).stdout,
    ) as Project[];
    expect(projectsJson.map((p) => p.id).sort()).toEqual([projectA.id, projectB.id].sort());

    const members = await cli(['members', 'list'], org.ownerKey);
    expect(members.code, members.stderr).toBe(0);
    expect(members.stdout).toContain(`owner@${org.slug}.test`);
    const membersJson = JSON.parse(
      (await cli(['members', 'list', '--json'], org.ownerKey)).stdout,
    ) as Member[];
    expect(membersJson).toHaveLength(2);

    const refused = await cli(['whoami'], 'cadre_not_a_real_key_000000000000');
    expect(refused.code).toBe(1);
  });
});
