import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { type Database, openDatabase } from '../../db/client.js';
import { migrate } from '../../db/migrate.js';
import type { AuditEventRow } from './audit.repo.js';
import { createAuditNameReader } from './audit-names.js';

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
  database.observeQueries(() => statements++);
});
afterAll(() => database.close());

const event = (organizationId: string, targetType: string, targetId: string, actorUserId: string) =>
  ({
    id: `${organizationId}-${targetId}`,
    seq: 1,
    organizationId,
    action: 'test',
    actorUserId,
    actorApiKeyId: null,
    actorSessionId: null,
    actorKind: 'session',
    targetType,
    targetId,
    metadata: null,
    createdAt: new Date(),
  }) satisfies AuditEventRow;

it('names the pages of one turn in one statement, each only from its own organization', async () => {
  const names = createAuditNameReader(database);
  statements = 0;
  // Organization A's page names B's key (an id it cannot own): it must not learn B's name for it.
  const pageA = [event('org-a', 'apiKey', 'key-a', 'user-a'), event('org-a', 'apiKey', 'key-b', 'user-a')];
  const pageB = [
    event('org-b', 'apiKey', 'key-b', 'user-b'),
    event('org-b', 'organization', 'org-b', 'user-b'),
  ];
  const [a, b] = await Promise.all([names('org-a', pageA), names('org-b', pageB)]);
  expect(statements).toBe(1);
  expect(pageA.map((row) => a.target(row))).toEqual(['deploy A', null]);
  expect(pageB.map((row) => b.target(row))).toEqual(['secret name of B', 'Org B']);
  // People by name, or by email when the name is blank.
  expect(a.actor(pageA[0]!)).toBe('Ada');
  expect(b.actor(pageB[0]!)).toBe('b@example.test');
});
