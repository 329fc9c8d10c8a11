import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { z } from 'zod';
import type { usageSchema } from '../../src/modules/billing/billing.schemas.js';
import type { expertListSchema } from '../../src/modules/registry-faces/registry.schemas.js';
import type { DataOf } from '../support/answers.js';
import { expectRegistryError } from '../support/assertions.js';
import { addMember, createKey, createOrganization, type TestOrganization } from '../support/fixtures.js';
import { startServer, type TestServer } from '../support/server.js';
import {
  baseSkill,
  type ExpertBody,
  expertBody,
  getExpert,
  keyPath,
  publish,
  published,
  uniqueName,
} from './helpers.js';

let server: TestServer;
let personal: TestOrganization;
let plus: TestOrganization;
let team: TestOrganization;
let otherPersonal: TestOrganization;

beforeAll(async () => {
  server = await startServer();
  [personal, plus, team, otherPersonal] = await Promise.all([
    createOrganization(server, 'personal'),
    createOrganization(server, 'personalPlus'),
    createOrganization(server, 'team'),
    createOrganization(server, 'personal'),
  ]);
});
afterAll(() => server.close());

describe('POST /registry/experts: publish', () => {
  it('answers { data: { expert: registryExpert } } with every field, available and latest', async () => {
    const name = uniqueName();
    const body = expertBody(name, '1.2.3', {
      description: 'Writes things',
      instruction: 'Write well.',
      tags: ['stable', 'beta'],
      skills: {
        '@service/base': baseSkill,
        search: { type: 'mcpSseSkill', endpoint: 'https://mcp.example.com/sse', description: 'd', rule: 'r' },
      },
    });
    const res = await publish(server, personal.ownerKey, body);
    expect(res.status, res.text).toBe(200);
    const expert = res.body.data.expert;
    expect(expert).toEqual({
      type: 'registryExpert',
      id: expect.stringMatching(/^[a-z0-9]{24}$/),
      key: `${name}@1.2.3`,
      name,
      version: '1.2.3',
      minRuntimeVersion: '0.1.0',
      description: 'Writes things',
      tags: ['latest', 'stable', 'beta'],
      owner: { name: personal.slug, organizationId: personal.id, createdAt: expect.any(String) },
      createdAt: expect.any(String),
      updatedAt: expect.any(String),
      status: 'available',
      instruction: 'Write well.',
      skills: body.skills,
      delegates: [],
      integrity: expect.stringMatching(/^sha256-[A-Za-z0-9+/]{43}=$/),
    });
    expect(Object.keys(expert.skills as object)).toEqual(['@service/base', 'search']);
    expect(new Date(expert.createdAt as string).toISOString()).toBe(expert.createdAt);
    // The owner's createdAt is the organization's, not the Expert's.
    const org = await server.context.tenancy.getOrganization(personal.id);
    expect((expert.owner as { createdAt: string }).createdAt).toBe(org.createdAt.toISOString());
    const read = await getExpert(server, `${name}@1.2.3`);
    expect(read.body).toEqual(res.body);
  });

  it('gives latest to the new version and takes it from the previous holder', async () => {
    const name = uniqueName();
    await published(server, personal.ownerKey, expertBody(name, '2.0.0'));
    const second = await published(server, personal.ownerKey, expertBody(name, '1.5.0'));
    // "most recently published", not the highest number
    expect(second.tags).toEqual(['latest']);
    expect((await getExpert(server, `${name}@2.0.0`)).body.data.expert.tags).toEqual([]);
    expect((await getExpert(server, name)).body.data.expert.version).toBe('1.5.0');
  });

  it('accepts args, pick/omit, requiredEnv and interactive skills with JSON Schema tools', async () => {
    const res = await publish(
      server,
      personal.ownerKey,
      expertBody(uniqueName(), '1.0.0', {
        skills: {
          '@service/base': {
            ...baseSkill,
            args: ['-y', '@cadre/base'],
            pick: ['read'],
            requiredEnv: ['TOKEN'],
          },
          ask: {
            type: 'interactiveSkill',
            tools: { confirm: { description: 'Ask', inputJsonSchema: '{"type":"object","properties":{}}' } },
          },
        },
      }),
    );
    expect(res.status, res.text).toBe(200);
  });

  it.each([
    ['without @service/base', { skills: { other: baseSkill } }],
    [
      '@service/base of the wrong type',
      { skills: { '@service/base': { type: 'mcpSseSkill', endpoint: 'https://x.example' } } },
    ],
    ['an mcpStdioSkill without command', { skills: { '@service/base': { type: 'mcpStdioSkill' } } }],
    [
      'an mcpSseSkill without endpoint',
      { skills: { '@service/base': baseSkill, s: { type: 'mcpSseSkill' } } },
    ],
    [
      'an mcpSseSkill with a non-URL endpoint',
      { skills: { '@service/base': baseSkill, s: { type: 'mcpSseSkill', endpoint: 'not a url' } } },
    ],
    [
      'an interactiveSkill without tools',
      { skills: { '@service/base': baseSkill, s: { type: 'interactiveSkill' } } },
    ],
    [
      'a tool whose inputJsonSchema is not JSON',
      {
        skills: {
          '@service/base': baseSkill,
          s: { type: 'interactiveSkill', tools: { t: { inputJsonSchema: '{nope' } } },
        },
      },
    ],
    [
      'a tool whose inputJsonSchema is not a JSON Schema',
      {
        skills: {
          '@service/base': baseSkill,
          s: { type: 'interactiveSkill', tools: { t: { inputJsonSchema: '{"type":42}' } } },
        },
      },
    ],
    ['an unknown skill type', { skills: { '@service/base': baseSkill, s: { type: 'webSkill' } } }],
    ['"latest" in tags', { tags: ['latest'] }],
    ['a malformed tag', { tags: ['Not A Tag'] }],
    ['more than 8 tags', { tags: ['a', 'b', 'c', 'd', 'e', 'f', 'g', 'h', 'i'] }],
    ['a description of 2049 characters', { description: 'd'.repeat(2049) }],
    ['an instruction over 20 KB of UTF-8', { instruction: 'é'.repeat(10 * 1024 + 1) }],
    ['a version that is not SemVer', { version: '1.0' }],
    ['a minRuntimeVersion that is not SemVer', { minRuntimeVersion: 'latest' }],
    ['an invalid name', { name: 'Bad Name' }],
    ['a name over 255 characters', { name: 'n'.repeat(256) }],
    ['the same delegate twice', { delegates: ['x', 'x'] }],
    ['an unknown field', { extra: true }],
  ])('rejects a body with %s (400)', async (_label, override) => {
    const res = await publish(server, personal.ownerKey, {
      ...expertBody(uniqueName()),
      ...(override as object),
    });
    expectRegistryError(res, 400);
  });

  it('accepts limits exactly at the maximum (2048 characters, 20 KB bytes)', async () => {
    const res = await publish(
      server,
      personal.ownerKey,
      expertBody(uniqueName(), '1.0.0', {
        description: 'd'.repeat(2048),
        instruction: 'é'.repeat(10 * 1024),
      }),
    );
    expect(res.status, res.text).toBe(200);
  });

  it.each<keyof ExpertBody>(['name', 'version', 'minRuntimeVersion', 'description', 'instruction', 'skills'])(
    'requires %s (400)',
    async (field) => {
      const body: Partial<ExpertBody> = expertBody(uniqueName());
      delete body[field];
      // Sent as is: an incomplete body is not an ExpertBody, which `publish` takes.
      const res = await server.request('POST', '/registry/experts', { key: personal.ownerKey, body });
      expectRegistryError(res, 400);
    },
  );

  it('minRuntimeVersion names a runtime release: v1.0, v1, 1.0, v2.1.0-beta.1 stored and returned as given', async () => {
    for (const [index, runtime] of ['v1.0', 'v1', '1.0', '1.0.0', 'v2.1.0-beta.1'].entries()) {
      const name = uniqueName();
      const res = await publish(
        server,
        personal.ownerKey,
        expertBody(name, `1.0.${index}`, { minRuntimeVersion: runtime }),
      );
      expect(res.status, res.text).toBe(200);
      expect(res.body.data.expert.minRuntimeVersion).toBe(runtime);
      expect((await getExpert(server, name)).body.data.expert.minRuntimeVersion).toBe(runtime);
      const list = await server.request<z.infer<typeof expertListSchema>>(
        'GET',
        `/registry/experts?filter=${name}`,
      );
      expect(list.body.data.experts[0]?.minRuntimeVersion).toBe(runtime);
    }
  });

  it.each(['latest', 'abc', '', '1.0.0.0', 'v'])('refuses minRuntimeVersion %j with 400', async (runtime) => {
    const res = await publish(
      server,
      personal.ownerKey,
      expertBody(uniqueName(), '1.0.0', { minRuntimeVersion: runtime }),
    );
    expectRegistryError(res, 400);
    expect(res.body).toMatchObject({ reason: expect.stringContaining('minRuntimeVersion') });
  });

  it('rejects malformed JSON with 400 in the registry shape', async () => {
    const res = await server.request('POST', '/registry/experts', { key: personal.ownerKey, rawBody: '{' });
    expectRegistryError(res, 400);
  });

  describe('naming rule', () => {
    it('personal and personalPlus accounts publish unscoped names only', async () => {
      for (const org of [personal, plus]) {
        expect((await publish(server, org.ownerKey, expertBody(uniqueName()))).status).toBe(200);
        expectRegistryError(
          await publish(server, org.ownerKey, expertBody(`@${org.slug}/${uniqueName()}`)),
          400,
        );
      }
    });

    it('team accounts must publish names scoped with their own slug', async () => {
      expectRegistryError(await publish(server, team.ownerKey, expertBody(uniqueName())), 400);
      expectRegistryError(
        await publish(server, team.ownerKey, expertBody(`@other-${team.slug}/${uniqueName()}`)),
        400,
      );
      const ok = await publish(server, team.ownerKey, expertBody(`@${team.slug}/${uniqueName()}`));
      expect(ok.status, ok.text).toBe(200);
      expect(ok.body.data.expert.owner).toMatchObject({ name: team.slug, organizationId: team.id });
    });

    it('an unscoped name belongs to the organization that first published it, even after every version is deleted', async () => {
      const name = uniqueName();
      await published(server, personal.ownerKey, expertBody(name, '1.0.0'));
      expectRegistryError(await publish(server, otherPersonal.ownerKey, expertBody(name, '2.0.0')), 403);
      const del = await server.request('DELETE', `/registry/experts/${name}@1.0.0`, {
        key: personal.ownerKey,
      });
      expect(del.status).toBe(200);
      expectRegistryError(await publish(server, otherPersonal.ownerKey, expertBody(name, '3.0.0')), 403);
      expect((await publish(server, personal.ownerKey, expertBody(name, '3.0.0'))).status).toBe(200);
    });
  });

  describe('versions', () => {
    it('a name@version cannot be published twice', async () => {
      const name = uniqueName();
      await published(server, personal.ownerKey, expertBody(name, '1.0.0'));
      const again = await publish(server, personal.ownerKey, expertBody(name, '1.0.0'));
      expectRegistryError(again, 400);
      expect(again.body).toMatchObject({ reason: expect.stringContaining('never be reused') });
    });

    it('a deleted version number stays reserved', async () => {
      const name = uniqueName();
      await published(server, personal.ownerKey, expertBody(name, '1.0.0'));
      await published(server, personal.ownerKey, expertBody(name, '1.1.0'));
      expect(
        (await server.request('DELETE', `/registry/experts/${name}@1.0.0`, { key: personal.ownerKey }))
          .status,
      ).toBe(200);
      expectRegistryError(await publish(server, personal.ownerKey, expertBody(name, '1.0.0')), 400);
    });

    it('several versions of one name coexist', async () => {
      const name = uniqueName();
      for (const v of ['1.0.0', '1.1.0', '2.0.0-beta.1'])
        await published(server, personal.ownerKey, expertBody(name, v));
      for (const v of ['1.0.0', '1.1.0', '2.0.0-beta.1'])
        expect((await getExpert(server, `${name}@${v}`)).status).toBe(200);
    });
  });

  describe('delegates', () => {
    it('must resolve to published Experts, by any key form', async () => {
      const target = uniqueName();
      await published(server, personal.ownerKey, expertBody(target, '1.0.0', { tags: ['stable'] }));
      const scoped = `@${team.slug}/${uniqueName()}`;
      await published(server, team.ownerKey, expertBody(scoped, '1.0.0'));
      const delegates = [
        target,
        `${target}@1.0.0`,
        `${target}@latest`,
        `${target}@stable`,
        scoped,
        `${scoped}@1.0.0`,
      ];
      const res = await publish(
        server,
        otherPersonal.ownerKey,
        expertBody(uniqueName(), '1.0.0', { delegates }),
      );
      expect(res.status, res.text).toBe(200);
      expect(res.body.data.expert.delegates).toEqual(delegates);
    });

    it.each([
      ['an unknown name', (t: string) => `${t}-missing`],
      ['an unknown version', (t: string) => `${t}@9.9.9`],
      ['an unknown tag', (t: string) => `${t}@nope`],
      ['a malformed key', () => 'Not A Key'],
    ])('rejects %s (400)', async (_label, make) => {
      const target = uniqueName();
      await published(server, personal.ownerKey, expertBody(target));
      const res = await publish(
        server,
        personal.ownerKey,
        expertBody(uniqueName(), '1.0.0', { delegates: [make(target)] }),
      );
      expectRegistryError(res, 400);
    });

    it('rejects delegating to itself', async () => {
      const name = uniqueName();
      await published(server, personal.ownerKey, expertBody(name, '1.0.0'));
      for (const self of [name, `${name}@2.0.0`, `${name}@1.0.0`]) {
        expectRegistryError(
          await publish(server, personal.ownerKey, expertBody(name, '2.0.0', { delegates: [self] })),
          400,
        );
      }
    });
  });

  describe('security', () => {
    it('401 without a credential or with an invalid one', async () => {
      expectRegistryError(
        await server.request('POST', '/registry/experts', { body: expertBody(uniqueName()) }),
        401,
      );
      expectRegistryError(await publish(server, `cadre_${'x'.repeat(40)}`, expertBody(uniqueName())), 401);
    });

    it('403 without experts:write; members and admins may publish', async () => {
      const memberId = await addMember(server, personal, 'member');
      const billingOnly = await createKey(server, personal, memberId, {
        type: 'organization',
        permissions: ['billing:read'],
      });
      expectRegistryError(await publish(server, billingOnly.key, expertBody(uniqueName())), 403);
      const writer = await createKey(server, personal, memberId, {
        type: 'organization',
        permissions: ['experts:write'],
      });
      expect((await publish(server, writer.key, expertBody(uniqueName()))).status).toBe(200);
      const adminId = await addMember(server, personal, 'admin');
      const admin = await createKey(server, personal, adminId);
      expect((await publish(server, admin.key, expertBody(uniqueName()))).status).toBe(200);
    });
  });
});

describe('billing usage', () => {
  it("counts the organization's published versions in expertVersions, deleted ones included", async () => {
    const org = await createOrganization(server, 'personal');
    const usage = async () => {
      const res = await server.request<DataOf<typeof usageSchema>>(
        'GET',
        `/api/v1/organizations/${org.id}/billing/usage`,
        { key: org.ownerKey },
      );
      return res.body.data.counters.find((counter) => counter.key === 'expertVersions')?.used;
    };
    expect(await usage()).toBe(0);
    const name = uniqueName('usage');
    await published(server, org.ownerKey, expertBody(name, '1.0.0'));
    await published(server, org.ownerKey, expertBody(name, '1.1.0'));
    expect((await server.request('DELETE', keyPath(`${name}@1.1.0`), { key: org.ownerKey })).status).toBe(
      200,
    );
    expect(await usage()).toBe(2);
  });
});
