import { createHash } from 'node:crypto';
import canonicalize from 'canonicalize';
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  backfillIntegrity,
  canonicalDefinition,
  integrityOf,
  type RunnableDefinition,
} from '../../src/modules/supply-chain/integrity.js';
import { createOrganization, type TestOrganization } from '../support/fixtures.js';
import { createPerstackClient } from '../support/perstack-client.js';
import { startServer, type TestServer } from '../support/server.js';
import { baseSkill, expertBody, getExpert, published, uniqueName } from './helpers.js';

let server: TestServer;
let org: TestOrganization;

beforeAll(async () => {
  server = await startServer();
  org = await createOrganization(server, 'personal');
});
afterAll(() => server.close());

/** The digest as docs/registry.md tells a reader to recompute it, written out here without integrity.ts. */
function recompute(record: Record<string, unknown>): string {
  const fields = [
    'name',
    'version',
    'minRuntimeVersion',
    'description',
    'instruction',
    'skills',
    'delegates',
  ];
  const picked = Object.fromEntries(fields.map((field) => [field, record[field]]));
  const text = canonicalize(picked) as string;
  return `sha256-${createHash('sha256').update(text, 'utf8').digest('base64')}`;
}

const definition: RunnableDefinition = {
  name: 'writer',
  version: '1.0.0',
  minRuntimeVersion: 'v1.0',
  description: 'Writes',
  instruction: 'You write.\nWell.',
  skills: {
    '@service/base': baseSkill,
    search: { type: 'mcpSseSkill', endpoint: 'https://search.example/sse', pick: ['find'] },
  },
  delegates: ['editor@1.0.0'],
};

describe('the integrity digest', () => {
  it('is sha256-<base64> of the canonical JSON of the seven run-relevant fields', () => {
    const digest = integrityOf(definition);
    expect(digest).toMatch(/^sha256-[A-Za-z0-9+/]{43}=$/);
    const canonical = canonicalDefinition(definition);
    expect(Object.keys(JSON.parse(canonical))).toEqual([
      'delegates',
      'description',
      'instruction',
      'minRuntimeVersion',
      'name',
      'skills',
      'version',
    ]);
    expect(digest).toBe(`sha256-${createHash('sha256').update(canonical).digest('base64')}`);
  });

  it('is stable across key order and whitespace', () => {
    const reordered = JSON.parse(
      JSON.stringify(
        {
          delegates: definition.delegates,
          skills: {
            search: { pick: ['find'], endpoint: 'https://search.example/sse', type: 'mcpSseSkill' },
            '@service/base': { packageName: baseSkill.packageName, command: 'npx', type: 'mcpStdioSkill' },
          },
          instruction: definition.instruction,
          description: definition.description,
          minRuntimeVersion: definition.minRuntimeVersion,
          version: definition.version,
          name: definition.name,
        },
        null,
        4,
      ),
    );
    expect(integrityOf(reordered)).toBe(integrityOf(definition));
  });

  it('treats absent delegates as [] and ignores fields that do not run (tags, status, owner)', () => {
    const { delegates: _delegates, ...without } = definition;
    expect(integrityOf(without)).toBe(integrityOf({ ...without, delegates: [] }));
    const extra = { ...definition, tags: ['stable'], status: 'disabled', owner: { name: 'x' } };
    expect(integrityOf(extra)).toBe(integrityOf(definition));
  });

  it('changes with any change of a run-relevant field', () => {
    const changes: Partial<RunnableDefinition>[] = [
      { name: 'writer2' },
      { version: '1.0.1' },
      { minRuntimeVersion: '1.0' },
      { description: 'Writes.' },
      { instruction: 'You write.\nWell. ' },
      { delegates: [] },
      { delegates: ['editor@1.0.1'] },
      { skills: { '@service/base': baseSkill } },
      {
        skills: {
          ...definition.skills,
          search: { type: 'mcpSseSkill', endpoint: 'https://search.example/sse' },
        },
      },
      { skills: { '@service/base': { ...baseSkill, args: ['--x'] }, search: definition.skills.search! } },
    ];
    const digests = new Set([
      integrityOf(definition),
      ...changes.map((c) => integrityOf({ ...definition, ...c })),
    ]);
    expect(digests.size).toBe(changes.length + 1);
  });
});

describe('integrity on the registry', () => {
  it('is computed at publish, returned on both faces and recomputed from a read', async () => {
    const name = uniqueName('digest');
    const helper = await published(server, org.ownerKey, expertBody(`${name}-helper`));
    const body = expertBody(name, '1.0.0', {
      minRuntimeVersion: '1.0.0',
      delegates: [helper.key],
      skills: {
        '@service/base': { ...baseSkill, args: ['-y', 'é 😀'] },
        ask: { type: 'interactiveSkill', tools: { ask: { inputJsonSchema: '{"type":"object"}' } } },
      },
    });
    const answer = await published(server, org.ownerKey, body);
    expect(answer.integrity).toBe(integrityOf(body));
    const read = await getExpert(server, answer.key);
    expect(read.status).toBe(200);
    const record = read.body.data.expert;
    expect(record.integrity).toBe(answer.integrity);
    expect(recompute(record)).toBe(record.integrity);
    // A record published without delegates stores [], and its digest is over [] too.
    expect(recompute(helper)).toBe(helper.integrity);

    // The Perstack face (its client's schemas, test/support/perstack-client.ts) accepts and returns the same
    // digest; its minRuntimeVersion is normalised, so the digest is recomputed from the registry face.
    const perstack = createPerstackClient(server.url);
    const got = await perstack.get(answer.key);
    expect(got.ok).toBe(true);
    const raw = await server.request<{ data: { expert: { integrity: string; minRuntimeVersion: string } } }>(
      'GET',
      `/api/registry/v1/experts/${encodeURIComponent(answer.key)}`,
    );
    expect(raw.body.data.expert.minRuntimeVersion).toBe('v1.0');
    expect(raw.body.data.expert.integrity).toBe(answer.integrity);
  });

  it('is filled for versions stored before it existed (start-up backfill), and a read never waits for it', async () => {
    const names = [uniqueName('old'), uniqueName('old')];
    const records = [];
    for (const name of names) records.push(await published(server, org.ownerKey, expertBody(name)));
    const { db } = server.context.database;
    await db.execute(
      sql`UPDATE registry_experts SET integrity = NULL WHERE name IN (${names[0]}, ${names[1]})`,
    );
    // Before the backfill reaches it, a read computes the same value.
    const before = await server.request<{ data: { expert: { integrity: string } } }>(
      'GET',
      `/registry/experts/${encodeURIComponent(`${names[0]}@1.0.0`)}`,
    );
    expect(before.body.data.expert.integrity).toBe(records[0]!.integrity);
    expect(await backfillIntegrity(db)).toBeGreaterThanOrEqual(2);
    const stored = (await db.execute(
      sql`SELECT name, integrity FROM registry_experts WHERE name IN (${names[0]}, ${names[1]}) ORDER BY name`,
    )) as unknown as { rows?: { name: string; integrity: string }[] } & { name: string; integrity: string }[];
    const rows = stored.rows ?? stored;
    expect(Object.fromEntries(rows.map((row) => [row.name, row.integrity]))).toEqual(
      Object.fromEntries(records.map((record) => [record.name, record.integrity])),
    );
    expect(await backfillIntegrity(db)).toBe(0);
  });
});
