import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectRegistryError } from '../support/assertions.js';
import { createKey, createOrganization, type TestOrganization } from '../support/fixtures.js';
import { startServer, type TestServer } from '../support/server.js';
import { baseSkill, expertBody, getExpert, publish, published, uniqueName } from './helpers.js';

// The base skill under the names Cadre accepts (docs/registry.md, "Base skill"): Cadre's and Perstack's by
// default, and the names an operator adds (CADRE_BASE_SKILL_NAMES, here the app's `baseSkillNames`).

let cadre: TestServer;
let operated: TestServer;
let org: TestOrganization;
let operatedOrg: TestOrganization;

beforeAll(async () => {
  [cadre, operated] = await Promise.all([startServer(), startServer({ baseSkillNames: ['@acme/base'] })]);
  [org, operatedOrg] = await Promise.all([createOrganization(cadre), createOrganization(operated)]);
});
afterAll(() => Promise.all([cadre?.close(), operated?.close()]));

const withSkills = (skills: Record<string, unknown>) =>
  expertBody(uniqueName(), '1.0.0', { skills: skills as never });

const reasonOf = (res: { body: unknown }) => (res.body as { reason: string }).reason;

describe('publish: the base skill', () => {
  it('accepts Perstack\'s "@perstack/base", stored and answered under that name', async () => {
    const perstackBase = { ...baseSkill, packageName: '@perstack/base' };
    const body = withSkills({
      '@perstack/base': perstackBase,
      search: { type: 'mcpSseSkill', endpoint: 'https://s.test/sse' },
    });
    const expert = await published(cadre, org.ownerKey, body);
    expect(expert.skills).toEqual(body.skills);
    expect(Object.keys(expert.skills)).toEqual(['@perstack/base', 'search']);
    expect((await getExpert(cadre, body.name)).body.data.expert.skills).toEqual(body.skills);
    const stored = (await cadre.context.database.db.execute(
      sql`SELECT skills FROM registry_experts WHERE name = ${body.name}`,
    )) as unknown as { rows: Array<{ skills: Record<string, unknown> }> };
    expect(Object.keys(stored.rows[0]?.skills ?? {})).toEqual(['@perstack/base', 'search']);
  });

  it('refuses a definition with neither, naming the accepted names (400)', async () => {
    const res = await publish(cadre, org.ownerKey, withSkills({ other: baseSkill }));
    expectRegistryError(res, 400);
    expect(reasonOf(res)).toBe(
      'Request validation failed: skills: must include a base skill: one of "@service/base", "@perstack/base"',
    );
  });

  it('refuses two base skills, naming both (400)', async () => {
    const res = await publish(
      cadre,
      org.ownerKey,
      withSkills({ '@service/base': baseSkill, '@perstack/base': baseSkill }),
    );
    expectRegistryError(res, 400);
    expect(reasonOf(res)).toBe(
      'Request validation failed: skills: must include only one base skill, has "@service/base", "@perstack/base"',
    );
  });

  it('refuses a base skill that is not an mcpStdioSkill, whatever its name (400)', async () => {
    const sse = { type: 'mcpSseSkill', endpoint: 'https://base.test/sse' };
    const res = await publish(cadre, org.ownerKey, withSkills({ '@perstack/base': sse }));
    expectRegistryError(res, 400);
    expect(reasonOf(res)).toBe(
      'Request validation failed: skills.@perstack/base.type: must be "mcpStdioSkill" for the base skill "@perstack/base"',
    );
  });

  it("is checked before the key's permissions, as the rest of the body is", async () => {
    const billingOnly = await createKey(cadre, org, org.ownerId, {
      type: 'organization',
      permissions: ['billing:read'],
    });
    expectRegistryError(await publish(cadre, billingOnly.key, withSkills({ other: baseSkill })), 400);
    expectRegistryError(
      await publish(cadre, billingOnly.key, withSkills({ '@service/base': baseSkill })),
      403,
    );
  });
});

describe('publish: names an operator adds', () => {
  it('accepts an added name where it is configured, and refuses it where it is not', async () => {
    const body = withSkills({ '@acme/base': baseSkill });
    const expert = await published(operated, operatedOrg.ownerKey, body);
    expect(Object.keys(expert.skills)).toEqual(['@acme/base']);
    const refused = await publish(cadre, org.ownerKey, body);
    expectRegistryError(refused, 400);
    expect(reasonOf(refused)).toContain('one of "@service/base", "@perstack/base"');
  });

  it('keeps accepting the defaults, and names every accepted name when none is there', async () => {
    await published(operated, operatedOrg.ownerKey, withSkills({ '@service/base': baseSkill }));
    await published(operated, operatedOrg.ownerKey, withSkills({ '@perstack/base': baseSkill }));
    const res = await publish(operated, operatedOrg.ownerKey, withSkills({ other: baseSkill }));
    expect(reasonOf(res)).toBe(
      'Request validation failed: skills: must include a base skill: one of "@service/base", "@perstack/base", "@acme/base"',
    );
    const two = await publish(
      operated,
      operatedOrg.ownerKey,
      withSkills({ '@acme/base': baseSkill, '@service/base': baseSkill }),
    );
    expect(reasonOf(two)).toContain('must include only one base skill, has "@acme/base", "@service/base"');
  });

  it('the registry service exposes the accepted names, read-only, for every face that publishes', () => {
    expect(cadre.context.registry.baseSkillNames).toEqual(['@service/base', '@perstack/base']);
    expect(operated.context.registry.baseSkillNames).toEqual([
      '@service/base',
      '@perstack/base',
      '@acme/base',
    ]);
    expect(Object.isFrozen(operated.context.registry.baseSkillNames)).toBe(true);
  });

  it('the OpenAPI document still describes the publish body', async () => {
    const doc = await cadre.request<{
      components: { schemas: Record<string, { properties?: object; required?: string[] }> };
    }>('GET', '/openapi.json');
    const body = doc.body.components.schemas.PublishExpert;
    expect(Object.keys(body?.properties ?? {})).toEqual(
      expect.arrayContaining(['name', 'version', 'minRuntimeVersion', 'instruction', 'skills']),
    );
    expect(body?.required).toContain('skills');
  });
});
