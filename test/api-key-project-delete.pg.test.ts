import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createOrganization, type TestOrganization } from './support/fixtures.js';
import { until, waitingOnLocks } from './support/locks.js';
import { startServer, type TestServer } from './support/server.js';

// A key created while its project is being deleted (docs/api-keys.md, "Grants"): on PostgreSQL, where the two
// transactions really overlap. The test holds the project's agents FOR SHARE from a connection of its own, so
// the delete stops after it has read its blockers and before it commits; the key is created in that window.

let server: TestServer;
let org: TestOrganization;
beforeAll(async () => {
  server = await startServer();
  org = await createOrganization(server, 'team');
});
afterAll(() => server.close());

describe('creating a key whose grant names a project being deleted', () => {
  it('waits for the delete and is refused (422): no live key names the deleted project', async () => {
    const made = await server.request<{ data: { id: string } }>('POST', '/api/v1/projects', {
      key: org.ownerKey,
      body: { slug: 'doomed', name: 'Doomed' },
    });
    expect(made.status, made.text).toBe(201);
    const projectId = made.body.data.id;
    const agent = await server.request('POST', `/api/v1/projects/${projectId}/agents`, {
      key: org.ownerKey,
      body: { name: 'bot' },
    });
    expect(agent.status, agent.text).toBe(201);

    const holder = new pg.Client({ connectionString: server.db.url });
    await holder.connect();
    const observer = new pg.Client({ connectionString: server.db.url });
    await observer.connect();
    try {
      await holder.query('BEGIN');
      await holder.query('SELECT 1 FROM agents WHERE project_id = $1 FOR SHARE', [projectId]);

      // The delete locks the project, reads its blockers (none), then waits to delete the agent.
      const deleting = server.request('DELETE', `/api/v1/projects/${projectId}`, { key: org.ownerKey });
      await until(async () => (await waitingOnLocks(observer)) >= 1);

      let created: Awaited<ReturnType<typeof server.request>> | undefined;
      const creating = server
        .request('POST', '/api/v1/api-keys', {
          key: org.ownerKey,
          body: {
            name: 'for the doomed project',
            grants: { type: 'project', projectIds: [projectId], permissions: ['projects:read'] },
          },
        })
        .then((res) => {
          created = res;
          return res;
        });
      // Either the key waits on the project's lock (a second waiter), or it went through (the defect).
      await until(async () => created !== undefined || (await waitingOnLocks(observer)) >= 2);
      await holder.query('ROLLBACK');

      const [deleted, key] = await Promise.all([deleting, creating]);
      expect(deleted.status, deleted.text).toBe(204);
      expect(key.status, key.text).toBe(422);
      expect(key.body).toMatchObject({
        error: { code: 'validation_failed', details: [{ path: 'grants.projectIds.0' }] },
      });
      const { rows } = await observer.query(
        "SELECT id FROM api_keys WHERE revoked_at IS NULL AND grants->'projectIds' ? $1",
        [projectId],
      );
      expect(rows).toEqual([]);
    } finally {
      await holder.end();
      await observer.end();
    }
  });
});
