import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expertBody, keyPath, published, uniqueName } from './registry/helpers.js';
import { createKey, createOrganization, type TestOrganization } from './support/fixtures.js';
import { startServer, type TestServer } from './support/server.js';

interface Reference {
  field: string;
  type: string;
  id: string;
  name: string | null;
}
interface AuditEvent {
  action: string;
  metadata: Record<string, unknown> | null;
  references: Reference[];
}

let server: TestServer;
let org: TestOrganization;

beforeAll(async () => {
  server = await startServer();
  org = await createOrganization(server, 'team');
});
afterAll(() => server.close());

/**
 * The ids an event's details carry that a person would read as a person, a key, an Expert, a project, an
 * environment, an invitation or a connection: each comes back with its name (docs/organization-api.md).
 */
const NAMED_FIELDS = [
  'invitedByUserId',
  'invitationId',
  'expertId',
  'projectId',
  'environmentId',
  'revokedApiKeyIds',
  'connections',
];

describe('audit events name what their details refer to', () => {
  it('after an invitation, a role change, a key, a removal, a project and a publish, every id has its name', async () => {
    const email = 'ada@references.test';
    const invited = await server.request<{ data: { token: string } }>(
      'POST',
      `/api/v1/organizations/${org.slug}/invitations`,
      { key: org.ownerKey, body: { email, role: 'admin' } },
    );
    expect(invited.status, invited.text).toBe(201);
    const accepted = await server.request<{ data: { user: { id: string } } }>(
      'POST',
      `/auth/invitations/${invited.body.data.token}/accept`,
      { body: { name: 'Ada Lovelace', password: 'correct horse battery staple' } },
    );
    expect(accepted.status, accepted.text).toBe(200);
    const adaId = accepted.body.data.user.id;
    const member = `/api/v1/organizations/${org.slug}/members/${adaId}`;
    const demoted = await server.request('PUT', member, { key: org.ownerKey, body: { role: 'member' } });
    expect(demoted.status, demoted.text).toBe(200);
    await createKey(
      server,
      org,
      adaId,
      { type: 'organization', permissions: ['members:read'] },
      { name: 'Ada CI' },
    );
    expect((await server.request('DELETE', member, { key: org.ownerKey })).status).toBe(200);

    const project = await server.request<{ data: { project: { id: string } }; environments?: unknown }>(
      'POST',
      '/api/v1/projects',
      { key: org.ownerKey, body: { slug: 'website', name: 'Website' } },
    );
    expect(project.status, project.text).toBe(201);
    const projectId =
      (project.body.data as { id?: string }).id ??
      (project.body.data as { project: { id: string } }).project.id;
    const added = await server.request<{ data: { id: string } }>(
      'POST',
      `/api/v1/projects/${projectId}/environments`,
      { key: org.ownerKey, body: { name: 'staging' } },
    );
    expect(added.status, added.text).toBe(201);
    const renamed = await server.request(
      'PATCH',
      `/api/v1/projects/${projectId}/environments/${added.body.data.id}`,
      {
        key: org.ownerKey,
        body: { name: 'preview' },
      },
    );
    expect(renamed.status, renamed.text).toBe(200);
    const name = `@${org.slug}/${uniqueName('named')}`;
    await published(server, org.ownerKey, expertBody(name, '1.0.0'));
    const deprecated = await server.request('POST', keyPath(`${name}@1.0.0`), {
      key: org.ownerKey,
      body: { status: 'deprecated' },
    });
    expect(deprecated.status, deprecated.text).toBe(200);

    const res = await server.request<{ data: AuditEvent[] }>(
      'GET',
      `/api/v1/organizations/${org.slug}/audit-events?limit=100`,
      { key: org.ownerKey },
    );
    expect(res.status, res.text).toBe(200);
    const events = res.body.data;
    const referenced = (action: string) => events.find((event) => event.action === action)?.references;

    // Every id-bearing field of every event has its references, each with a name.
    for (const event of events) {
      for (const field of NAMED_FIELDS) {
        const value = event.metadata?.[field];
        if (value === undefined || value === null) continue;
        const ids = Array.isArray(value) ? value : [value];
        for (const id of ids) {
          const reference = event.references.find((r) => r.field === field && r.id === id);
          expect(reference, `${event.action}: ${field} ${String(id)}`).toBeDefined();
          expect(reference?.name, `${event.action}: ${field} ${String(id)}`).toBeTruthy();
        }
      }
    }
    const owner = `owner@${org.slug}.test`;
    expect(referenced('membership.created')).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ field: 'invitedByUserId', type: 'user', name: owner }),
        expect.objectContaining({ field: 'invitationId', type: 'invitation', name: email }),
      ]),
    );
    expect(referenced('membership.removed')).toEqual([
      expect.objectContaining({ field: 'revokedApiKeyIds', type: 'apiKey', name: 'Ada CI' }),
    ]);
    expect(referenced('environment.renamed')).toEqual([
      expect.objectContaining({ field: 'projectId', type: 'project', id: projectId, name: 'Website' }),
    ]);
    expect(referenced('expert.updated')).toEqual([
      expect.objectContaining({ field: 'expertId', type: 'expert', name: `${name}@1.0.0` }),
    ]);
    // Another organization's events never name this one's rows.
    const other = await createOrganization(server, 'team');
    const theirs = await server.request<{ data: AuditEvent[] }>(
      'GET',
      `/api/v1/organizations/${other.slug}/audit-events?limit=100`,
      { key: other.ownerKey },
    );
    expect(JSON.stringify(theirs.body.data)).not.toContain('Website');
  });
});
