import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { auditEvents } from '../src/modules/audit/audit.tables.js';
import { connections } from '../src/modules/oauth/index.js';
import { connect, type OAuthWorld, startOAuthWorld } from './oauth/harness.js';
import { expectApiError } from './support/assertions.js';
import { addMember, createKey, createOrganization, createProject, uniqueSlug } from './support/fixtures.js';
import { login, setPassword } from './support/session.js';

type Project = {
  id: string;
  slug: string;
  name: string;
  environments: Array<{ id: string; name: string }>;
  agents: Array<{ id: string; name: string }>;
};
type Part = { id: string; projectId: string; name: string };
type Blocked = {
  error: { code: string; message: string; details: Array<{ path: string; message: string }> };
};

let world: OAuthWorld;

beforeAll(async () => {
  world = await startOAuthWorld();
});
afterAll(() => world.close());

const request = <T = Record<string, unknown>>(method: string, path: string, key: string, body?: unknown) =>
  world.server.request<T>(method, path, { key, ...(body === undefined ? {} : { body }) });

async function newProject(key = world.org.ownerKey) {
  const slug = uniqueSlug('p');
  const res = await request<{ data: Project }>('POST', '/api/v1/projects', key, {
    slug,
    name: `Project ${slug}`,
  });
  expect(res.status, res.text).toBe(201);
  return res.body.data;
}

const eventsOn = (targetId: string) =>
  world.server.context.database.db
    .select()
    .from(auditEvents)
    .where(eq(auditEvents.targetId, targetId))
    .orderBy(auditEvents.seq);

describe('projects, environments and agents through the management API', () => {
  it('the owner creates, renames and deletes a project, an environment and an agent, each audited', async () => {
    const key = world.org.ownerKey;
    const project = await newProject();
    expect(project.environments.map((e) => e.name).sort()).toEqual(['development', 'production']);
    expect(project.agents).toEqual([]);

    const renamed = await request<{ data: Project }>('PATCH', `/api/v1/projects/${project.id}`, key, {
      name: 'Web shop',
      slug: `${project.slug}-shop`,
    });
    expect(renamed.status, renamed.text).toBe(200);
    expect(renamed.body.data).toMatchObject({
      id: project.id,
      name: 'Web shop',
      slug: `${project.slug}-shop`,
    });

    const env = await request<{ data: Part }>('POST', `/api/v1/projects/${project.id}/environments`, key, {
      name: 'staging',
    });
    expect(env.status, env.text).toBe(201);
    expect(env.body.data).toMatchObject({ projectId: project.id, name: 'staging' });
    const envPath = `/api/v1/projects/${project.id}/environments/${env.body.data.id}`;
    const envRenamed = await request<{ data: Part }>('PATCH', envPath, key, { name: 'preview' });
    expect(envRenamed.status, envRenamed.text).toBe(200);
    expect(envRenamed.body.data.name).toBe('preview');
    // Names are unique within a project.
    expectApiError(await request('PATCH', envPath, key, { name: 'production' }), 409, 'conflict');

    const agent = await request<{ data: Part }>('POST', `/api/v1/projects/${project.id}/agents`, key, {
      name: 'Support bot',
    });
    expect(agent.status, agent.text).toBe(201);
    const agentPath = `/api/v1/projects/${project.id}/agents/${agent.body.data.id}`;
    const agentRenamed = await request<{ data: Part }>('PATCH', agentPath, key, { name: 'Triage bot' });
    expect(agentRenamed.body.data.name).toBe('Triage bot');

    const read = await request<{ data: Project }>('GET', `/api/v1/projects/${project.id}`, key);
    expect(read.body.data.environments.map((e) => e.name).sort()).toEqual([
      'development',
      'preview',
      'production',
    ]);
    expect(read.body.data.agents.map((a) => a.name)).toEqual(['Triage bot']);

    expect((await request('DELETE', agentPath, key)).status).toBe(204);
    expect((await request('DELETE', envPath, key)).status).toBe(204);
    const afterParts = await request<{ data: Project }>('GET', `/api/v1/projects/${project.id}`, key);
    expect(afterParts.body.data.agents).toEqual([]);
    expect(afterParts.body.data.environments.map((e) => e.name).sort()).toEqual([
      'development',
      'production',
    ]);

    const gone = await request('DELETE', `/api/v1/projects/${project.id}`, key);
    expect(gone.status, gone.text).toBe(204);
    expectApiError(await request('GET', `/api/v1/projects/${project.id}`, key), 404, 'not_found');
    expectApiError(await request('DELETE', `/api/v1/projects/${project.id}`, key), 404, 'not_found');

    expect((await eventsOn(project.id)).map((e) => e.action)).toEqual([
      'project.created',
      'project.renamed',
      'project.deleted',
    ]);
    expect((await eventsOn(env.body.data.id)).map((e) => e.action)).toEqual([
      'environment.created',
      'environment.renamed',
      'environment.deleted',
    ]);
    expect((await eventsOn(agent.body.data.id)).map((e) => e.action)).toEqual([
      'agent.created',
      'agent.renamed',
      'agent.deleted',
    ]);
    const [renameEvent] = (await eventsOn(project.id)).filter((e) => e.action === 'project.renamed');
    expect(renameEvent!.metadata).toEqual({
      from: { slug: project.slug, name: project.name },
      to: { slug: `${project.slug}-shop`, name: 'Web shop' },
    });
  });

  it('a taken slug is 409; an invalid body is 422', async () => {
    const project = await newProject();
    expectApiError(
      await request('POST', '/api/v1/projects', world.org.ownerKey, { slug: project.slug, name: 'x' }),
      409,
      'conflict',
    );
    expectApiError(
      await request('POST', '/api/v1/projects', world.org.ownerKey, { slug: 'Not A Slug', name: 'x' }),
      422,
      'validation_failed',
    );
    expectApiError(
      await request('PATCH', `/api/v1/projects/${project.id}`, world.org.ownerKey, {}),
      422,
      'validation_failed',
    );
  });
});

describe('deleting what connections and API keys depend on', () => {
  it('answers 409 naming the connection and the keys; cascade=true disconnects and revokes them, audited', async () => {
    const { server, org, provider } = world;
    const project = await newProject();
    const production = project.environments.find((e) => e.name === 'production')!;
    const connected = await connect(world, org.ownerKey, {
      projectId: project.id,
      environmentId: production.id,
    });
    expect(connected.params.oauth_status, JSON.stringify(connected.params)).toBe('success');
    const connectionId = connected.params.connection_id!;
    const projectKey = await createKey(
      server,
      org,
      org.ownerId,
      { type: 'project', projectIds: [project.id], permissions: ['projects:read'] },
      { name: 'deploy bot' },
    );
    const environmentKey = await createKey(
      server,
      org,
      org.ownerId,
      { type: 'environment', environmentIds: [production.id], permissions: ['projects:operate'] },
      { name: 'prod operator' },
    );
    // A key naming another project is not in the way.
    const elsewhere = await createKey(server, org, org.ownerId, {
      type: 'project',
      projectIds: [world.projectId],
      permissions: ['projects:read'],
    });

    const blocked = await request<Blocked>('DELETE', `/api/v1/projects/${project.id}`, org.ownerKey);
    expectApiError(blocked, 409, 'conflict');
    expect(blocked.body.error.message).toMatch(/1 connection\(s\) and 2 API key grant\(s\).*cascade=true/);
    // The project by the name people gave it, not its id.
    expect(blocked.body.error.message).toMatch(new RegExp(`^Project “${project.name}” is used by`));
    expect(blocked.body.error.message).not.toContain(project.id);
    expect(blocked.body.error.details).toEqual([
      { path: `connections.${connectionId}`, message: 'OpenID Connect alice@provider.test (production)' },
      { path: `apiKeys.${projectKey.id}`, message: 'deploy bot' },
      { path: `apiKeys.${environmentKey.id}`, message: 'prod operator' },
    ]);
    // Deleting the environment alone is blocked by its connection and the environment key only.
    const envBlocked = await request<Blocked>(
      'DELETE',
      `/api/v1/projects/${project.id}/environments/${production.id}`,
      org.ownerKey,
    );
    expectApiError(envBlocked, 409, 'conflict');
    expect(envBlocked.body.error.details.map((d) => d.path)).toEqual([
      `connections.${connectionId}`,
      `apiKeys.${environmentKey.id}`,
    ]);
    // Nothing changed.
    expect((await request('GET', '/api/v1/me', projectKey.key)).status).toBe(200);
    expect((await request('GET', `/api/v1/projects/${project.id}`, org.ownerKey)).status).toBe(200);

    const revocations = provider.revocationRequests.count;
    const cascaded = await request('DELETE', `/api/v1/projects/${project.id}?cascade=true`, org.ownerKey);
    expect(cascaded.status, cascaded.text).toBe(204);
    // The revoked keys are refused at once; the connection is gone, its tokens revoked at the provider.
    expectApiError(await request('GET', '/api/v1/me', projectKey.key), 401, 'unauthorized');
    expectApiError(await request('GET', '/api/v1/me', environmentKey.key), 401, 'unauthorized');
    expect((await request('GET', '/api/v1/me', elsewhere.key)).status).toBe(200);
    const rows = await server.context.database.db
      .select()
      .from(connections)
      .where(eq(connections.id, connectionId));
    expect(rows).toEqual([]);
    expect(provider.revocationRequests.count - revocations).toBe(2);
    expectApiError(await request('GET', `/api/v1/projects/${project.id}`, org.ownerKey), 404, 'not_found');

    const cause = { type: 'project', id: project.id };
    expect((await eventsOn(connectionId)).at(-1)).toMatchObject({
      action: 'connection.deleted',
      metadata: expect.objectContaining({ cascade: cause, revocation: { outcome: 'revoked' } }),
    });
    expect((await eventsOn(projectKey.id)).at(-1)).toMatchObject({
      action: 'api_key.revoked',
      metadata: { cascade: cause },
    });
    expect((await eventsOn(project.id)).at(-1)).toMatchObject({
      action: 'project.deleted',
      metadata: {
        slug: project.slug,
        name: project.name,
        cascade: { connections: [connectionId], apiKeys: [projectKey.id, environmentKey.id] },
      },
    });
  });

  it('an environment with a connection: 409, then cascade=true disconnects it; an agent named by a key: 409, then cascade', async () => {
    const { org } = world;
    const project = await newProject();
    const development = project.environments.find((e) => e.name === 'development')!;
    const connected = await connect(world, org.ownerKey, {
      projectId: project.id,
      environmentId: development.id,
    });
    const connectionId = connected.params.connection_id!;
    const envPath = `/api/v1/projects/${project.id}/environments/${development.id}`;
    expectApiError(await request('DELETE', envPath, org.ownerKey), 409, 'conflict');
    expect((await request('DELETE', `${envPath}?cascade=true`, org.ownerKey)).status).toBe(204);
    const list = await request<Project>('GET', `/api/v1/projects/${project.id}`, org.ownerKey);
    expect(list.text).not.toContain(development.id);
    expect(list.text).not.toContain(connectionId);

    const agent = await request<{ data: Part }>(
      'POST',
      `/api/v1/projects/${project.id}/agents`,
      org.ownerKey,
      {
        name: 'runner',
      },
    );
    const agentKey = await createKey(server(), org, org.ownerId, {
      type: 'agent',
      agentIds: [agent.body.data.id],
      permissions: ['agents:run'],
    });
    const agentPath = `/api/v1/projects/${project.id}/agents/${agent.body.data.id}`;
    const blocked = await request<Blocked>('DELETE', agentPath, org.ownerKey);
    expectApiError(blocked, 409, 'conflict');
    expect(blocked.body.error.details).toEqual([
      { path: `apiKeys.${agentKey.id}`, message: '(unnamed key)' },
    ]);
    expect((await request('DELETE', `${agentPath}?cascade=true`, org.ownerKey)).status).toBe(204);
    expectApiError(await request('GET', '/api/v1/me', agentKey.key), 401, 'unauthorized');
    // The project itself now holds nothing in the way.
    expect((await request('DELETE', `/api/v1/projects/${project.id}`, org.ownerKey)).status).toBe(204);
  });
});

const server = () => world.server;

describe('who may', () => {
  it('a key scoped to a project manages only that project: 404 for another, 403 for organization-wide creation', async () => {
    const { org } = world;
    const mine = await newProject();
    const theirs = await newProject();
    const scoped = await createKey(server(), org, org.ownerId, {
      type: 'project',
      projectIds: [mine.id],
      permissions: ['projects:read', 'projects:write'],
    });
    const renamed = await request<{ data: Project }>('PATCH', `/api/v1/projects/${mine.id}`, scoped.key, {
      name: 'Mine',
    });
    expect(renamed.status, renamed.text).toBe(200);
    const env = await request<{ data: Part }>(
      'POST',
      `/api/v1/projects/${mine.id}/environments`,
      scoped.key,
      {
        name: 'qa',
      },
    );
    expect(env.status, env.text).toBe(201);
    expect(
      (await request('DELETE', `/api/v1/projects/${mine.id}/environments/${env.body.data.id}`, scoped.key))
        .status,
    ).toBe(204);

    const theirsEnv = theirs.environments[0]!.id;
    for (const [method, path, body] of [
      ['PATCH', `/api/v1/projects/${theirs.id}`, { name: 'Not yours' }],
      ['DELETE', `/api/v1/projects/${theirs.id}`, undefined],
      ['POST', `/api/v1/projects/${theirs.id}/environments`, { name: 'qa' }],
      ['PATCH', `/api/v1/projects/${theirs.id}/environments/${theirsEnv}`, { name: 'qa' }],
      ['DELETE', `/api/v1/projects/${theirs.id}/environments/${theirsEnv}`, undefined],
      ['POST', `/api/v1/projects/${theirs.id}/agents`, { name: 'bot' }],
    ] as const) {
      expectApiError(await request(method, path, scoped.key, body), 404, 'not_found');
    }
    expectApiError(
      await request('POST', '/api/v1/projects', scoped.key, { slug: uniqueSlug('p'), name: 'x' }),
      403,
      'forbidden',
    );
    // Reaching the project without projects:write is 403.
    const readOnly = await createKey(server(), org, org.ownerId, {
      type: 'project',
      projectIds: [mine.id],
      permissions: ['projects:read'],
    });
    expectApiError(
      await request('PATCH', `/api/v1/projects/${mine.id}`, readOnly.key, { name: 'x' }),
      403,
      'forbidden',
    );
    const untouched = await request<{ data: Project }>('GET', `/api/v1/projects/${theirs.id}`, org.ownerKey);
    expect(untouched.body.data.name).toBe(theirs.name);
    expect(untouched.body.data.environments).toHaveLength(2);
  });

  it('an environment grant with projects:write renames and deletes only its environment', async () => {
    const { org } = world;
    const project = await newProject();
    const [mine, theirs] = project.environments;
    const scoped = await createKey(server(), org, org.ownerId, {
      type: 'environment',
      environmentIds: [mine!.id],
      permissions: ['projects:write'],
    });
    const base = `/api/v1/projects/${project.id}/environments`;
    const renamed = await request<{ data: Part }>('PATCH', `${base}/${mine!.id}`, scoped.key, {
      name: 'live',
    });
    expect(renamed.status, renamed.text).toBe(200);
    expectApiError(
      await request('PATCH', `${base}/${theirs!.id}`, scoped.key, { name: 'x' }),
      404,
      'not_found',
    );
    expectApiError(await request('DELETE', `${base}/${theirs!.id}`, scoped.key), 404, 'not_found');
    // The project itself is beyond an environment grant: not its to rename or extend.
    expectApiError(
      await request('PATCH', `/api/v1/projects/${project.id}`, scoped.key, { name: 'x' }),
      404,
      'not_found',
    );
    expectApiError(await request('POST', base, scoped.key, { name: 'qa' }), 404, 'not_found');
    // Deleting the environment its own grant names: the key itself is in the way (409), cascade revokes it.
    const blocked = await request<Blocked>('DELETE', `${base}/${mine!.id}`, scoped.key);
    expectApiError(blocked, 409, 'conflict');
    expect(blocked.body.error.details).toEqual([{ path: `apiKeys.${scoped.id}`, message: '(unnamed key)' }]);
    expect((await request('DELETE', `${base}/${mine!.id}?cascade=true`, scoped.key)).status).toBe(204);
    expectApiError(await request('GET', '/api/v1/me', scoped.key), 401, 'unauthorized');
  });

  it("another organization's project is 404; a member is refused (403) by key and by console session; an admin may", async () => {
    const { org } = world;
    const other = await createOrganization(server(), 'team');
    const foreign = await createProject(server(), other);
    expectApiError(
      await request('PATCH', `/api/v1/projects/${foreign.project.id}`, org.ownerKey, { name: 'x' }),
      404,
      'not_found',
    );
    expectApiError(
      await request('DELETE', `/api/v1/projects/${foreign.project.id}`, org.ownerKey),
      404,
      'not_found',
    );

    const memberId = await addMember(server(), org, 'member');
    const memberKey = await createKey(server(), org, memberId);
    const project = await newProject();
    expectApiError(
      await request('POST', '/api/v1/projects', memberKey.key, { slug: uniqueSlug('p'), name: 'x' }),
      403,
      'forbidden',
    );
    expectApiError(
      await request('PATCH', `/api/v1/projects/${project.id}`, memberKey.key, { name: 'x' }),
      403,
      'forbidden',
    );
    expectApiError(
      await request('DELETE', `/api/v1/projects/${project.id}`, memberKey.key),
      403,
      'forbidden',
    );
    await setPassword(server(), memberId);
    const memberEmail = (await server().context.tenancy.getUser(memberId)).email;
    const session = await login(server(), memberEmail);
    const bySession = await server().request('POST', `/api/v1/projects/${project.id}/agents`, {
      headers: { cookie: session.cookie, 'x-csrf-token': session.csrfToken },
      body: { name: 'bot' },
    });
    expectApiError(bySession, 403, 'forbidden');

    const adminId = await addMember(server(), org, 'admin');
    const adminKey = await createKey(server(), org, adminId);
    expect((await request('DELETE', `/api/v1/projects/${project.id}`, adminKey.key)).status).toBe(204);
  });
});
