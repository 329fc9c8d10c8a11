import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectApiError } from './support/assertions.js';
import { createOrganization, createProject, type TestOrganization, uniqueSlug } from './support/fixtures.js';
import { startServer, type TestServer } from './support/server.js';

// Names wherever people type them (docs/organization-api.md, "Organizations, projects and environments in
// paths"): a project by slug or id, an environment by name or id, every organization-scoped path also under
// /api/v1/organizations/{org}/…, and another organization's names invisible (the 404 of a missing one).

let server: TestServer;
let org: TestOrganization;
let other: TestOrganization;
let project: { id: string; slug: string; production: string };
let foreignProject: { id: string };
const sharedSlug = uniqueSlug('web');

type Data<T> = { data: T };
type ProjectAnswer = {
  id: string;
  slug: string;
  name: string;
  environments: Array<{ id: string; name: string }>;
};

beforeAll(async () => {
  server = await startServer();
  org = await createOrganization(server, 'team');
  other = await createOrganization(server, 'team');
  // The same slug in both organizations: each key reaches its own.
  const created = await createProject(server, org, sharedSlug);
  const production = created.environments.find((e) => e.name === 'production')!.id;
  project = { id: created.project.id, slug: sharedSlug, production };
  foreignProject = { id: (await createProject(server, other, sharedSlug)).project.id };
});
afterAll(() => server.close());

const as = (key: string) => ({
  get: <T = Record<string, unknown>>(path: string) => server.request<T>('GET', path, { key }),
  send: <T = Record<string, unknown>>(method: string, path: string, body?: unknown) =>
    server.request<T>(method, path, { key, ...(body === undefined ? {} : { body }) }),
});

describe('a project by slug or id, an environment by name or id', () => {
  it('reads the same project by its slug as by its id, and never the other organization’s of that slug', async () => {
    const bySlug = await as(org.ownerKey).get<Data<ProjectAnswer>>(`/api/v1/projects/${project.slug}`);
    const byId = await as(org.ownerKey).get<Data<ProjectAnswer>>(`/api/v1/projects/${project.id}`);
    expect(bySlug.status).toBe(200);
    expect(bySlug.body.data.id).toBe(project.id);
    expect(bySlug.body).toEqual(byId.body);
    const theirs = await as(other.ownerKey).get<Data<ProjectAnswer>>(`/api/v1/projects/${project.slug}`);
    expect(theirs.body.data.id).toBe(foreignProject.id);
  });

  it('answers another organization’s project id as it answers a missing one', async () => {
    const foreign = await as(org.ownerKey).get(`/api/v1/projects/${foreignProject.id}`);
    const missing = await as(org.ownerKey).get('/api/v1/projects/no-such-project');
    expectApiError(foreign, 404, 'not_found');
    expectApiError(missing, 404, 'not_found');
    expect((missing.body as { error: { message: string } }).error.message).toBe(
      'Project no-such-project not found',
    );
  });

  it('creates, renames and deletes an environment by the project’s slug and the environment’s name', async () => {
    const created = await as(org.ownerKey).send<Data<{ id: string; projectId: string; name: string }>>(
      'POST',
      `/api/v1/projects/${project.slug}/environments`,
      { name: 'staging' },
    );
    expect(created.status).toBe(201);
    expect(created.body.data).toMatchObject({ projectId: project.id, name: 'staging' });
    const renamed = await as(org.ownerKey).send<Data<{ id: string; name: string }>>(
      'PATCH',
      `/api/v1/projects/${project.slug}/environments/staging`,
      { name: 'preview' },
    );
    expect(renamed.body.data).toEqual(expect.objectContaining({ id: created.body.data.id, name: 'preview' }));
    const deleted = await as(org.ownerKey).send(
      'DELETE',
      `/api/v1/projects/${project.slug}/environments/preview`,
    );
    expect(deleted.status).toBe(204);
    const after = await as(org.ownerKey).get<Data<ProjectAnswer>>(`/api/v1/projects/${project.slug}`);
    expect(after.body.data.environments.map((e) => e.name).sort()).toEqual(['development', 'production']);
  });

  it('lists an environment’s connections by names, and another organization’s names are not found', async () => {
    const byNames = await as(org.ownerKey).get<Data<unknown[]>>(
      `/api/v1/projects/${project.slug}/environments/production/connections`,
    );
    const byIds = await as(org.ownerKey).get<Data<unknown[]>>(
      `/api/v1/projects/${project.id}/environments/${project.production}/connections`,
    );
    expect(byNames.status).toBe(200);
    expect(byNames.body).toEqual(byIds.body);
    const unknownEnvironment = await as(org.ownerKey).get(
      `/api/v1/projects/${project.slug}/environments/nowhere/connections`,
    );
    expectApiError(unknownEnvironment, 404, 'not_found');
  });

  it('starts an OAuth flow for a project and environment named in the query', async () => {
    // No integration is registered: the answer is about the preset, so the names were found.
    const byNames = await as(org.ownerKey).get(
      `/api/oauth/start/github?projectId=${project.slug}&environmentId=production`,
    );
    const byIds = await as(org.ownerKey).get(
      `/api/oauth/start/github?projectId=${project.id}&environmentId=${project.production}`,
    );
    expect(byNames.status).toBe(byIds.status);
    expect((byNames.body as { error: { code: string } }).error.code).toBe(
      (byIds.body as { error: { code: string } }).error.code,
    );
    const foreign = await as(org.ownerKey).get(
      `/api/oauth/start/github?projectId=${foreignProject.id}&environmentId=production`,
    );
    expectApiError(foreign, 404, 'not_found');
  });
});

/** The key's own use between two reads moves its lastUsedAt; nothing else may differ. */
const withoutLastUse = (body: unknown) =>
  JSON.parse(JSON.stringify(body, (key, value) => (key === 'lastUsedAt' ? undefined : value)));

describe('/api/v1/organizations/{org}/… beside every organization-scoped path', () => {
  const shortAndLong = [
    ['/api/v1/api-keys', 'api-keys'],
    ['/api/v1/projects', 'projects'],
    ['/api/v1/webhook-endpoints', 'webhook-endpoints'],
    ['/api/v1/events', 'events'],
    ['/api/v1/organization/publish-policy', 'publish-policy'],
    ['/api/v1/registry/approvals', 'registry/approvals'],
    ['/api/v1/domains', 'domains'],
  ] as const;

  it.each(shortAndLong)(
    '%s answers as /api/v1/organizations/{org}/%s by slug and by id',
    async (short, rest) => {
      const reference = await as(org.ownerKey).get(short);
      expect(reference.status).toBe(200);
      for (const name of [org.slug, org.id]) {
        const long = await as(org.ownerKey).get(`/api/v1/organizations/${name}/${rest}`);
        expect({ status: long.status, body: withoutLastUse(long.body) }).toEqual({
          status: 200,
          body: withoutLastUse(reference.body),
        });
      }
    },
  );

  it('answers another organization’s slug or id as an unknown one: 404, nothing of theirs', async () => {
    for (const name of [other.slug, other.id, 'no-such-organization']) {
      const res = await as(org.ownerKey).get(`/api/v1/organizations/${name}/api-keys`);
      expectApiError(res, 404, 'not_found');
      expect((res.body as { error: { message: string } }).error.message).toBe(
        `Organization ${name} not found`,
      );
    }
    const write = await as(org.ownerKey).send('POST', `/api/v1/organizations/${other.slug}/projects`, {
      slug: uniqueSlug('p'),
      name: 'never',
    });
    expectApiError(write, 404, 'not_found');
    const theirs = await as(other.ownerKey).get<Data<ProjectAnswer[]>>('/api/v1/projects');
    expect(theirs.body.data.map((p) => p.name)).not.toContain('never');
  });

  it('creates a project and reads its environment by names under the long form', async () => {
    const slug = uniqueSlug('api');
    const created = await as(org.ownerKey).send<Data<ProjectAnswer>>(
      'POST',
      `/api/v1/organizations/${org.slug}/projects`,
      {
        slug,
        name: 'API',
      },
    );
    expect(created.status).toBe(201);
    const connections = await as(org.ownerKey).get(
      `/api/v1/organizations/${org.slug}/projects/${slug}/environments/development/connections`,
    );
    expect(connections.status).toBe(200);
  });

  it('keeps the paths that already name the organization, by slug and by id, and 404 for another', async () => {
    for (const path of ['members', 'invitations', 'billing/subscription', 'audit-events', 'integrations']) {
      const bySlug = await as(org.ownerKey).get(`/api/v1/organizations/${org.slug}/${path}`);
      const byId = await as(org.ownerKey).get(`/api/v1/organizations/${org.id}/${path}`);
      expect([path, bySlug.status, byId.status]).toEqual([path, 200, 200]);
      const foreign = await as(org.ownerKey).get(`/api/v1/organizations/${other.slug}/${path}`);
      expect([path, foreign.status]).toEqual([path, 404]);
    }
  });

  it('documents the long forms in /openapi.json', async () => {
    const doc = await server.request<{ paths: Record<string, Record<string, { operationId?: string }>> }>(
      'GET',
      '/openapi.json',
    );
    expect(doc.body.paths['/api/v1/organizations/{org}/api-keys']?.get?.operationId).toBe(
      'listApiKeysInOrganization',
    );
    expect(Object.keys(doc.body.paths)).toContain('/api/v1/organizations/{org}/publish-policy');
    expect(Object.keys(doc.body.paths)).not.toContain('/api/v1/organizations/{org}/me');
  });
});
