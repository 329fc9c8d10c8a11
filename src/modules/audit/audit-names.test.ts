import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { auditRecordNames } from '../../composition/audit-names.js';
import { type Database, openDatabase } from '../../db/client.js';
import { migrate } from '../../db/migrate.js';
import { createAuditEventReads } from './audit.repo.js';
import { pageNames, targetNames } from './audit-names.js';
import { createReferenceNames } from './audit-references.js';

let database: Database;
let statements = 0;

beforeAll(async () => {
  database = await openDatabase({ dataDir: 'memory://' });
  await migrate(database);
  const { db } = database;
  await db.execute(sql`INSERT INTO organizations (id, slug, name, account_type)
    VALUES ('org-a', 'a', 'Org A', 'team'), ('org-b', 'b', 'Org B', 'team')`);
  await db.execute(sql`INSERT INTO users (id, email, name) VALUES ('user-a', 'a@example.test', 'Ada'),
    ('user-b', 'b@example.test', '  ')`);
  await db.execute(sql`INSERT INTO api_keys (id, organization_id, user_id, name, start, digest, grants) VALUES
    ('key-a', 'org-a', 'user-a', 'deploy A', 's', 'd-a', '{}'::jsonb),
    ('key-b', 'org-b', 'user-b', 'secret name of B', 's', 'd-b', '{}'::jsonb)`);
  // Organization A's trail names B's key (an id it cannot own: it must not learn B's name for it), a
  // project deleted since (named by its metadata), a user, and a user who is gone.
  const events: Array<[string, string, string, string, string | null]> = [
    ['a1', 'org-a', 'apiKey', 'key-a', null],
    ['a2', 'org-a', 'apiKey', 'key-b', null],
    ['a3', 'org-a', 'project', 'gone-project', '{"name":"Old site"}'],
    ['a4', 'org-a', 'user', 'user-b', null],
    ['a5', 'org-a', 'user', 'gone-user', null],
    ['b1', 'org-b', 'apiKey', 'key-b', null],
    ['b2', 'org-b', 'organization', 'org-b', null],
  ];
  for (const [id, organizationId, targetType, targetId, metadata] of events) {
    const actor = organizationId === 'org-a' ? 'user-a' : 'user-b';
    await db.execute(sql`INSERT INTO audit_events (id, organization_id, action, actor_kind, actor_user_id,
      target_type, target_id, metadata) VALUES (${id}, ${organizationId}, 'test', 'session', ${actor},
      ${targetType}, ${targetId}, ${metadata}::jsonb)`);
  }
  database.observeQueries(() => statements++);
});
afterAll(() => database.close());

it("reads each page with its names in one statement, each name only from the event's own organization", async () => {
  const names = auditRecordNames(database);
  const read = createAuditEventReads(database, names);
  const targetName = targetNames(names);
  statements = 0;
  const [a, b] = await Promise.all([read('org-a', { limit: 10 }), read('org-b', { limit: 10 })]);
  expect(statements).toBe(1);
  const targets = (rows: typeof a) => Object.fromEntries(rows.map((row) => [row.id, targetName(row)]));
  expect(targets(a)).toEqual({
    a1: 'deploy A',
    a2: null,
    a3: 'Old site',
    a4: 'b@example.test',
    a5: null,
  });
  expect(targets(b)).toEqual({ b1: 'secret name of B', b2: 'Org B' });
  // People by name, or by email when the name is blank.
  expect(a[0]!.actorName).toBe('Ada');
  expect(b[0]!.actorName).toBe('b@example.test');
});

it('names each kind only as the module owning it says: a kind nobody names has no name', async () => {
  const names = {
    invitation: {
      ofIds: async (_organizationId: string, ids: string[]) =>
        ids.map((id) => ({ id, name: `invited ${id}` })),
      recorded: (details: Readonly<Record<string, unknown>>) => `once ${String(details.email)}`,
    },
  };
  const references = await createReferenceNames(names)('org-a', [
    { metadata: { invitationId: 'i1', projectId: 'p1' } },
    { metadata: null },
  ]);
  expect(references).toEqual([
    [
      { field: 'invitationId', type: 'invitation', id: 'i1', name: 'invited i1' },
      { field: 'projectId', type: 'project', id: 'p1', name: null },
    ],
    [],
  ]);
  const targetName = targetNames(names);
  const target = { targetName: null, actorName: null, metadata: { email: 'a@example.test', name: 'Site' } };
  expect(targetName({ ...target, targetType: 'invitation', targetId: 'i1' })).toBe('once a@example.test');
  expect(targetName({ ...target, targetType: 'project', targetId: 'p1' })).toBeNull();
  expect(targetName({ ...target, targetName: 'Now', targetType: 'invitation', targetId: 'i1' })).toBe('Now');
  // A kind is written into the page's SQL as a literal: anything but a plain identifier is refused.
  expect(() => pageNames({ "x' OR '1": { current: () => sql`'name'` } })).toThrow(/plain identifier/);
});
