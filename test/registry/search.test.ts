import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createOrganization, type TestOrganization } from '../support/fixtures.js';
import { startServer, type TestServer } from '../support/server.js';
import { expertBody, published } from './helpers.js';

type ListAnswer = { data: { experts: Array<{ name: string; version: string }> }; meta: { total: number } };

let server: TestServer;
let personal: TestOrganization;
let team: TestOrganization;

const search = async (q: string, extra = '') => {
  const res = await server.request<ListAnswer>(
    'GET',
    `/registry/experts?q=${encodeURIComponent(q)}&sort=name&order=asc${extra}`,
  );
  expect(res.status, res.text).toBe(200);
  return { names: res.body.data.experts.map((e) => e.name), total: res.body.meta.total };
};

beforeAll(async () => {
  server = await startServer();
  personal = await createOrganization(server, 'personal');
  team = await createOrganization(server, 'team');
  const key = personal.ownerKey;
  await published(server, key, expertBody('search', '1.0.0', { description: 'Finds things.' }));
  await published(server, key, expertBody('web-search', '1.0.0', { description: 'Looks on the web.' }));
  await published(server, key, expertBody('deep_search', '1.0.0', { description: 'Digs.' }));
  await published(server, key, expertBody('research', '1.0.0', { description: 'Reads papers.' }));
  await published(server, key, expertBody('writer', '1.0.0', { description: 'Turns notes into prose.' }));
  // Only the latest version is searched: writer's newer description replaces the older one.
  await published(server, key, expertBody('writer', '1.1.0', { description: 'Turns a SEARCH into prose.' }));
  await published(server, key, expertBody('percent', '1.0.0', { description: 'Counts 100% of it.' }));
  await published(server, key, expertBody('underscore', '1.0.0', { description: 'Names a_b things.' }));
  await published(server, team.ownerKey, expertBody(`@${team.slug}/search-kit`, '1.0.0'));
});
afterAll(() => server.close());

describe('GET /registry/experts?q= (search)', () => {
  it('matches a name from its start, after its scope, after - or _, and descriptions in any case', async () => {
    const found = await search('search');
    expect(found.names).toEqual([
      `@${team.slug}/search-kit`,
      'deep_search',
      'search',
      'web-search',
      'writer',
    ]);
    expect(found.total).toBe(5);
    // Not in the middle of a word: research is not a search.
    expect(found.names).not.toContain('research');
    expect((await search('SEARCH')).names).toEqual(found.names);
  });

  it('searches descriptions anywhere, the latest version only', async () => {
    expect((await search('prose')).names).toEqual(['writer']);
    expect((await search('notes into')).names).toEqual([]);
    expect((await search('papers')).names).toEqual(['research']);
  });

  it('takes % and _ literally, pages, and combines with the organization and the name filter', async () => {
    expect((await search('100%')).names).toEqual(['percent']);
    expect((await search('%')).names).toEqual(['percent']);
    expect((await search('a_b')).names).toEqual(['underscore']);
    const page = await search('search', '&take=2&skip=1');
    expect(page.names).toEqual(['deep_search', 'search']);
    expect(page.total).toBe(5);
    expect((await search('search', `&organizationId=${team.id}`)).names).toEqual([
      `@${team.slug}/search-kit`,
    ]);
    expect((await search('search', '&filter=web')).names).toEqual(['web-search']);
  });

  it('answers each search from its own cache entry, and a new publish is found at once', async () => {
    expect((await search('fresh')).names).toEqual([]);
    await published(server, personal.ownerKey, expertBody('fresh-one', '1.0.0'));
    expect((await search('fresh')).names).toEqual(['fresh-one']);
    expect((await search('one')).names).toEqual(['fresh-one']);
  });

  it('refuses a search longer than 100 characters with 400', async () => {
    const res = await server.request('GET', `/registry/experts?q=${'a'.repeat(101)}`);
    expect(res.status).toBe(400);
  });
});
