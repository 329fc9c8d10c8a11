import { Validator } from '@seriousme/openapi-schema-validator';
import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { z } from 'zod';
import type { managementErrorSchema } from '../src/http/errors.js';
import { answersInRegistryShape } from '../src/http/faces.js';
import type { apiKeySchema } from '../src/modules/api-keys/api-keys.schemas.js';
import { apiKeys } from '../src/modules/api-keys/api-keys.tables.js';
import type { membershipSchema, userSchema } from '../src/modules/tenancy/tenancy.schemas.js';
import type { DataOf } from './support/answers.js';
import { expectApiError, expectRegistryError } from './support/assertions.js';
import {
  addMember,
  createKey,
  createOrganization,
  createProject,
  type TestOrganization,
} from './support/fixtures.js';
import { startServer, type TestServer } from './support/server.js';

type ApiErrorBody = z.infer<typeof managementErrorSchema>;
type MemberAdded = {
  data: { user: z.infer<typeof userSchema>; membership: z.infer<typeof membershipSchema> };
};

let server: TestServer;
let org: TestOrganization;

beforeAll(async () => {
  server = await startServer();
  org = await createOrganization(server, 'team');
});
afterAll(() => server.close());

describe('system routes', () => {
  it('answers /healthz and /readyz', async () => {
    expect((await server.request('GET', '/healthz')).body).toEqual({ status: 'ok' });
    const ready = await server.request('GET', '/readyz');
    expect(ready.status).toBe(200);
    expect(ready.body).toEqual({ status: 'ready' });
  });

  it('serves a valid OpenAPI 3.1 document generated from the route schemas', async () => {
    const res = await server.request<Record<string, unknown>>('GET', '/openapi.json');
    expect(res.status).toBe(200);
    expect(res.body.openapi).toBe('3.1.0');
    const result = await new Validator().validate(res.body);
    expect(result.errors ?? []).toEqual([]);
    expect(result.valid).toBe(true);
    const paths = res.body.paths as Record<string, Record<string, { operationId?: string }>>;
    expect(paths['/api/v1/api-keys']?.post?.operationId).toBe('createApiKey');
    expect(paths['/admin/v1/organizations']?.post?.operationId).toBe('adminCreateOrganization');
  });

  it('declares every tag an operation uses, each with a description', async () => {
    const res = await server.request<{
      tags: Array<{ name: string; description?: string }>;
      paths: Record<string, Record<string, { tags?: string[] }>>;
    }>('GET', '/openapi.json');
    const used = new Set(
      Object.values(res.body.paths).flatMap((item) => Object.values(item).flatMap((op) => op.tags ?? [])),
    );
    expect(used).toContain('Members');
    const described = new Map(res.body.tags.map((tag) => [tag.name, tag.description ?? '']));
    for (const tag of used) expect(described.get(tag), `tag ${tag}`).toMatch(/\w{3}/);
  });

  it('documents 422 (registry: 400) with inputs, 404 with path parameters, 401 when authenticated', async () => {
    type Operation = {
      parameters?: unknown[];
      requestBody?: unknown;
      security?: unknown[];
      responses?: object;
    };
    const res = await server.request<{ paths: Record<string, Record<string, Operation>> }>(
      'GET',
      '/openapi.json',
    );
    const gaps: string[] = [];
    for (const [path, operations] of Object.entries(res.body.paths)) {
      for (const [method, operation] of Object.entries(operations)) {
        const statuses = Object.keys(operation.responses ?? {});
        const invalid = answersInRegistryShape(path) ? '400' : '422';
        if (
          ((operation.parameters?.length ?? 0) > 0 || operation.requestBody) &&
          !statuses.includes(invalid)
        ) {
          gaps.push(`${method} ${path}: ${invalid}`);
        }
        if ((operation.security?.length ?? 0) > 0 && !statuses.includes('401'))
          gaps.push(`${method} ${path}: 401`);
      }
    }
    expect(gaps).toEqual([]);
  });

  it('serves the browsable reference at /docs', async () => {
    const res = await fetch(`${server.url}/docs/`);
    expect(res.status).toBe(200);
    expect(await res.text()).toContain('swagger');
  });
});

describe('error model', () => {
  it('answers unknown routes 404 in the management shape, with X-Request-Id', async () => {
    const res = await server.request('GET', '/api/v1/nothing-here');
    expectApiError(res, 404, 'not_found');
  });

  it('answers unknown registry routes in the registry shape', async () => {
    expectRegistryError(await server.request('GET', '/registry/nothing'), 404);
  });

  it('keeps a well-formed incoming X-Request-Id and replaces a malformed one', async () => {
    const kept = await server.request('GET', '/healthz', { headers: { 'x-request-id': 'trace-123.abc' } });
    expect(kept.headers.get('x-request-id')).toBe('trace-123.abc');
    const replaced = await server.request('GET', '/healthz', {
      headers: { 'x-request-id': 'bad id <script>' },
    });
    expect(replaced.headers.get('x-request-id')).toMatch(/^req_/);
  });

  it('answers malformed JSON 400 bad_request', async () => {
    const res = await server.request('POST', '/api/v1/api-keys', {
      key: org.ownerKey,
      rawBody: '{"grants": ',
    });
    expectApiError(res, 400, 'bad_request');
  });

  it('answers a non-JSON content type 415 unsupported_media_type', async () => {
    const res = await server.request('POST', '/api/v1/api-keys', {
      key: org.ownerKey,
      rawBody: 'name=x',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
    });
    expectApiError(res, 415, 'unsupported_media_type');
  });

  it.each(['utf-16', 'ISO-8859-1', '"latin1"'])(
    'answers JSON declared as charset=%s 415 before reading it; UTF-8 in any spelling is JSON',
    async (charset) => {
      const body = JSON.stringify({
        name: 'caf\u00e9',
        grants: { type: 'organization', permissions: ['billing:read'] },
      });
      const res = await server.request('POST', '/api/v1/api-keys', {
        key: org.ownerKey,
        rawBody: body,
        headers: { 'content-type': `application/json; charset=${charset}` },
      });
      expectApiError(res, 415, 'unsupported_media_type');
      expect((res.body as { error: { message: string } }).error.message).toContain('UTF-8');
      const registry = await server.request('POST', '/registry/experts', {
        key: org.ownerKey,
        rawBody: '{}',
        headers: { 'content-type': `application/json;charset=${charset}` },
      });
      expectRegistryError(registry, 415);
      for (const utf8 of ['utf-8', 'UTF-8', 'utf8']) {
        const ok = await server.request('POST', '/api/v1/api-keys', {
          key: org.ownerKey,
          rawBody: body,
          headers: { 'content-type': `application/json; charset=${utf8}` },
        });
        expect(ok.status, ok.text).toBe(200);
      }
    },
  );

  it('answers schema failures 422 with the paths of every problem', async () => {
    const res = await server.request('POST', '/api/v1/api-keys', {
      key: org.ownerKey,
      body: { grants: { type: 'project', projectIds: [], permissions: ['billing:read'] } },
    });
    expectApiError(res, 422, 'validation_failed');
    const details = (res.body as ApiErrorBody).error.details ?? [];
    expect(details.map((d) => d.path).sort()).toEqual(['grants.permissions.0', 'grants.projectIds']);
  });

  it('answers bodies over the limit 413 payload_too_large', async () => {
    const res = await server.request('POST', '/api/v1/api-keys', {
      key: org.ownerKey,
      rawBody: JSON.stringify({ name: 'x'.repeat(1024 * 1024 + 10) }),
    });
    expectApiError(res, 413, 'payload_too_large');
  });

  it('marks management answers no-store and never says X-Powered-By', async () => {
    const res = await server.request('GET', '/api/v1/api-keys', { key: org.ownerKey });
    expect(res.status).toBe(200);
    expect(res.headers.get('cache-control')).toBe('no-store');
    expect(res.headers.get('x-powered-by')).toBeNull();
  });
});

describe('API key authentication', () => {
  const cases: Array<[string, Record<string, string>]> = [
    ['no credential', {}],
    ['an empty bearer', { authorization: 'Bearer ' }],
    ['another scheme', { authorization: 'Basic dXNlcjpwYXNz' }],
    ['a malformed key', { authorization: 'Bearer cadre_short' }],
    ['an unknown well-formed key', { authorization: `Bearer cadre_${'A'.repeat(40)}` }],
  ];
  it.each(cases)('answers %s with 401 unauthorized', async (_name, headers) => {
    const res = await server.request('GET', '/api/v1/api-keys', { headers });
    expectApiError(res, 401, 'unauthorized');
    expect(res.headers.get('www-authenticate')).toContain('Bearer');
  });

  it('rejects a revoked key at once', async () => {
    const { id, key } = await createKey(server, org, org.ownerId);
    expect((await server.request('GET', '/api/v1/api-keys', { key })).status).toBe(200);
    expect((await server.request('DELETE', `/api/v1/api-keys/${id}`, { key: org.ownerKey })).status).toBe(
      200,
    );
    expectApiError(await server.request('GET', '/api/v1/api-keys', { key }), 401, 'unauthorized');
  });

  it('stores only a SHA-256 digest and the 12-character start', async () => {
    const { id, key } = await createKey(server, org, org.ownerId);
    const rows = await server.db.database.db.select().from(apiKeys).where(eq(apiKeys.id, id));
    const row = rows[0]!;
    expect(row.start).toBe(key.slice(0, 12));
    expect(row.digest).toMatch(/^[0-9a-f]{64}$/);
    expect(JSON.stringify(rows)).not.toContain(key);
  });

  it('records lastUsedAt in batches, not on the request path', async () => {
    const { id, key } = await createKey(server, org, org.ownerId);
    await server.request('GET', '/api/v1/api-keys', { key });
    await server.context.authenticator.flushLastUsed();
    const res = await server.request<DataOf<typeof apiKeySchema>>('GET', `/api/v1/api-keys/${id}`, {
      key: org.ownerKey,
    });
    expect(res.body.data.lastUsedAt).not.toBeNull();
  });

  it('follows a demotion at once: an admin key loses what members lack', async () => {
    const adminId = await addMember(server, org, 'admin');
    const { key } = await createKey(server, org, adminId, {
      type: 'organization',
      permissions: ['api-keys:read'],
    });
    const other = await createKey(server, org, org.ownerId);
    expect((await server.request('GET', `/api/v1/api-keys/${other.id}`, { key })).status).toBe(200);
    const demoted = await server.admin('PUT', `/admin/v1/organizations/${org.id}/members/${adminId}`, {
      role: 'member',
    });
    expect(demoted.status).toBe(200);
    expectApiError(await server.request('GET', `/api/v1/api-keys/${other.id}`, { key }), 403, 'forbidden');
  });
});

describe('admin API', () => {
  it('requires the admin token', async () => {
    expectApiError(
      await server.request('POST', '/admin/v1/organizations', { body: {} }),
      401,
      'unauthorized',
    );
    const wrong = await server.request('POST', '/admin/v1/organizations', { key: 'nope', body: {} });
    expectApiError(wrong, 401, 'unauthorized');
    const aKey = await server.request('POST', '/admin/v1/organizations', { key: org.ownerKey, body: {} });
    expectApiError(aKey, 401, 'unauthorized');
  });

  it.each(['personal', 'personalPlus', 'team'] as const)(
    'creates a %s organization with an owner key',
    async (type) => {
      const created = await createOrganization(server, type);
      const res = await server.request('GET', '/api/v1/api-keys', { key: created.ownerKey });
      expect(res.status).toBe(200);
    },
  );

  it('answers a taken slug 409 and a bad body 422', async () => {
    const res = await server.admin('POST', '/admin/v1/organizations', {
      slug: org.slug,
      name: 'x',
      accountType: 'team',
      owner: { email: 'x@example.test' },
    });
    expectApiError(res, 409, 'conflict');
    const bad = await server.admin('POST', '/admin/v1/organizations', {
      slug: 'Bad Slug',
      accountType: 'corp',
    });
    expectApiError(bad, 422, 'validation_failed');
  });

  it('creates projects with production and development environments, then environments and agents', async () => {
    const { project, environments } = await createProject(server, org);
    expect(environments.map((e) => e.name).sort()).toEqual(['development', 'production']);
    const env = await server.admin('POST', `/admin/v1/projects/${project.id}/environments`, {
      name: 'staging',
    });
    expect(env.status).toBe(201);
    const agent = await server.admin('POST', `/admin/v1/projects/${project.id}/agents`, { name: 'triage' });
    expect(agent.status).toBe(201);
    expectApiError(
      await server.admin('POST', '/admin/v1/projects/nope/agents', { name: 'a' }),
      404,
      'not_found',
    );
  });

  it('reaches organizations by id or slug and sets passwords', async () => {
    const bySlug = await server.admin<MemberAdded>('POST', `/admin/v1/organizations/${org.slug}/members`, {
      email: 'pw@example.test',
      role: 'member',
    });
    expect(bySlug.status).toBe(201);
    const userId = bySlug.body.data.user.id;
    expect(
      (await server.admin('PUT', `/admin/v1/users/${userId}/password`, { password: 'correct horse battery' }))
        .status,
    ).toBe(200);
    expectApiError(
      await server.admin('PUT', `/admin/v1/users/${userId}/password`, { password: 'short' }),
      422,
      'validation_failed',
    );
  });

  it("adding an existing member answers 409 naming that user's id", async () => {
    const first = await server.admin<MemberAdded>('POST', `/admin/v1/organizations/${org.slug}/members`, {
      email: 'twice@example.test',
      role: 'member',
    });
    expect(first.status).toBe(201);
    const again = await server.admin<ApiErrorBody>('POST', `/admin/v1/organizations/${org.slug}/members`, {
      email: 'twice@example.test',
      role: 'admin',
    });
    expectApiError(again, 409, 'conflict');
    expect(again.body.error.message).toContain(first.body.data.user.id);
    expect(again.body.error.details).toEqual([{ path: 'userId', message: first.body.data.user.id }]);
  });
});
