import { sql } from 'drizzle-orm';
import { expect } from 'vitest';
import type { z } from 'zod';
import type { Database } from '../../src/db/client.js';
import type {
  expertAnswerSchema,
  expertVersionsSchema,
  publishExpertBody,
} from '../../src/modules/registry-faces/registry.schemas.js';
import type { McpStdioSkill } from '../../src/shared/expert/expert-definition.js';
import { addMember, createKey, createOrganization } from '../support/fixtures.js';
import type { TestServer } from '../support/server.js';

/** What `POST /registry/experts` takes, as its schema reads it. */
export type ExpertBody = z.input<typeof publishExpertBody>;

export const baseSkill: McpStdioSkill = { type: 'mcpStdioSkill', command: 'npx', packageName: '@cadre/base' };

export function expertBody(name: string, version = '1.0.0', extra: Partial<ExpertBody> = {}): ExpertBody {
  return {
    name,
    version,
    minRuntimeVersion: '0.1.0',
    description: `The ${name} Expert`,
    instruction: `You are ${name}.`,
    skills: { '@service/base': baseSkill },
    ...extra,
  };
}

export type ExpertAnswer = z.infer<typeof expertAnswerSchema>;

export const publish = (server: TestServer, key: string, body: ExpertBody) =>
  server.request<ExpertAnswer>('POST', '/registry/experts', { key, body });

export async function published(server: TestServer, key: string, body: ExpertBody) {
  const res = await publish(server, key, body);
  expect(res.status, res.text).toBe(200);
  return res.body.data.expert;
}

/** Path of an Expert key, `@` and `/` encoded as most HTTP clients would. */
export const keyPath = (key: string, suffix = '') => `/registry/experts/${encodeURIComponent(key)}${suffix}`;

export const getExpert = (server: TestServer, key: string) =>
  server.request<ExpertAnswer>('GET', keyPath(key));

export const tagsOf = async (server: TestServer, key: string): Promise<string[] | number> => {
  const res = await getExpert(server, key);
  return res.status === 200 ? res.body.data.expert.tags : res.status;
};

export type VersionsAnswer = z.infer<typeof expertVersionsSchema>;

export const versionsOf = (server: TestServer, name: string) =>
  server.request<VersionsAnswer>('GET', keyPath(name, '/versions'));

/** Versions holding `latest` according to the versions listing (must be exactly one while any exist). */
export async function latestHolders(server: TestServer, name: string): Promise<string[]> {
  const res = await versionsOf(server, name);
  if (res.status === 404) return [];
  expect(res.status).toBe(200);
  return res.body.data.versions.filter((v) => v.tags.includes('latest')).map((v) => v.version);
}

let counter = 0;
/** A fresh unscoped Expert name. */
export const uniqueName = (prefix = 'expert') =>
  `${prefix}-${process.pid}-${Date.now().toString(36)}-${counter++}`;

/**
 * The registry's invariants, read straight from the database: while a name has versions that may hold latest
 * (none awaiting approval or rejected) exactly one holds it and it is the most recently published of those
 * (highest seq); every custom tag has one holder
 * and the denormalized tags arrays agree with registry_tags; registry_counts matches the latest holders per
 * organization; every version row has its reservation.
 */
export async function invariantViolations(database: Database): Promise<string[]> {
  const result = (await database.db.execute(sql`
    SELECT 'latest: ' || name AS problem FROM (
        SELECT e.*, NOT EXISTS (SELECT 1 FROM registry_approvals a WHERE a.expert_id = e.id AND a.status <> 'approved')
          AS eligible
        FROM registry_experts e) AS x GROUP BY name
      HAVING count(*) FILTER (WHERE is_latest) <> (CASE WHEN bool_or(eligible) THEN 1 ELSE 0 END)
          OR bool_or(is_latest AND NOT eligible)
          OR max(seq) FILTER (WHERE eligible) <> max(seq) FILTER (WHERE is_latest)
    UNION ALL
    SELECT 'tag row missing: ' || e.name || '@' || t.tag FROM registry_experts e CROSS JOIN LATERAL unnest(e.tags) AS t(tag)
      WHERE NOT EXISTS (SELECT 1 FROM registry_tags r WHERE r.name = e.name AND r.tag = t.tag AND r.expert_id = e.id)
    UNION ALL
    SELECT 'tag array missing: ' || r.name || '@' || r.tag FROM registry_tags r JOIN registry_experts e ON e.id = r.expert_id
      WHERE NOT (r.tag = ANY (e.tags)) OR r.name <> e.name
    UNION ALL
    SELECT 'count: ' || coalesce(c.organization_id, l.organization_id) FROM registry_counts c
      FULL JOIN (SELECT organization_id, count(*) AS n FROM registry_experts WHERE is_latest GROUP BY organization_id) l
        ON l.organization_id = c.organization_id
      WHERE coalesce(c.latest, 0) <> coalesce(l.n, 0)
    UNION ALL
    SELECT 'reservation missing: ' || e.name || '@' || e.version FROM registry_experts e
      WHERE NOT EXISTS (SELECT 1 FROM registry_versions v WHERE v.name = e.name AND v.version = e.version)
  `)) as unknown as { rows: Array<{ problem: string }> };
  return result.rows.map((row) => row.problem);
}

export async function countRows(database: Database, name: string): Promise<number> {
  const result = (await database.db.execute(
    sql`SELECT count(*)::int AS n FROM registry_experts WHERE name = ${name}`,
  )) as unknown as { rows: Array<{ n: number }> };
  return Number(result.rows[0]?.n);
}

export async function lastPublished(database: Database, name: string): Promise<string | undefined> {
  const result = (await database.db.execute(
    sql`SELECT version FROM registry_experts WHERE name = ${name} ORDER BY seq DESC LIMIT 1`,
  )) as unknown as { rows: Array<{ version: string }> };
  return result.rows[0]?.version;
}

/**
 * Two admins change different rules of a new organization's publish policy (no row yet) at once, `rounds`
 * times: each answer is 200 or 409, and the policy then holds every rule a 200 set (docs/registry.md
 * "Publish policies": concurrent partial changes compose). Answers the statuses seen, for the caller's message.
 */
export async function concurrentFirstPolicyChanges(server: TestServer, rounds: number): Promise<string[]> {
  const seen: string[] = [];
  for (let round = 0; round < rounds; round++) {
    const org = await createOrganization(server, 'team');
    const keys = await Promise.all(
      [0, 1].map(async () => (await createKey(server, org, await addMember(server, org, 'admin'))).key),
    );
    const changes = [{ requirePinnedVersions: true }, { approvalRequiredForWidening: true }];
    const answers = await Promise.all(
      changes.map((body, i) =>
        server.request('PUT', '/api/v1/organization/publish-policy', { key: keys[i]!, body }),
      ),
    );
    seen.push(answers.map((res) => res.status).join('/'));
    for (const res of answers) expect([200, 409], res.text).toContain(res.status);
    const now = await server.request<{ data: { policy: Record<string, unknown> } }>(
      'GET',
      '/api/v1/organization/publish-policy',
      { key: org.ownerKey },
    );
    changes.forEach((change, i) => {
      if (answers[i]!.status === 200) expect(now.body.data.policy, seen.join()).toMatchObject(change);
    });
  }
  return seen;
}
