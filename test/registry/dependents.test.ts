import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEPENDENTS_DEPTH_LIMIT } from '../../src/modules/supply-chain/dependents.js';
import { expectRegistryError } from '../support/assertions.js';
import { createOrganization, type TestOrganization } from '../support/fixtures.js';
import { startServer, type TestServer } from '../support/server.js';
import { expertBody, published, uniqueName } from './helpers.js';

let server: TestServer;
let org: TestOrganization;
let other: TestOrganization;
beforeAll(async () => {
  server = await startServer();
  org = await createOrganization(server, 'personal');
  other = await createOrganization(server, 'personal');
});
afterAll(() => server.close());

interface Dependents {
  data: { key: string; dependents: { key: string; depth: number; path: string[]; references: string[] }[] };
  meta: { total: number; truncated: boolean; depthLimit: number };
}
const dependents = (key: string) =>
  server.request<Dependents>('GET', `/registry/dependents?key=${encodeURIComponent(key)}`);
const publishTo = (owner: TestOrganization, name: string, delegates: string[] = []) =>
  published(server, owner.ownerKey, expertBody(name, '1.0.0', { delegates }));

describe('GET /registry/dependents', () => {
  it('lists a chain with each path, across organizations, exact and floating keys', async () => {
    const [c, b, a] = [uniqueName('c'), uniqueName('b'), uniqueName('a')];
    await publishTo(org, c);
    await publishTo(other, b, [c]); // floating: names c's latest
    await publishTo(org, a, [`${b}@1.0.0`]);
    const res = await dependents(`${c}@1.0.0`);
    expect(res.status, res.text).toBe(200);
    expect(res.body.data.key).toBe(`${c}@1.0.0`);
    expect(res.body.data.dependents).toEqual([
      {
        key: `${b}@1.0.0`,
        name: b,
        version: '1.0.0',
        depth: 1,
        path: [`${b}@1.0.0`, `${c}@1.0.0`],
        // b names c without a version: it floats onto c's latest.
        references: [c],
      },
      {
        key: `${a}@1.0.0`,
        name: a,
        version: '1.0.0',
        depth: 2,
        path: [`${a}@1.0.0`, `${b}@1.0.0`, `${c}@1.0.0`],
        references: [`${b}@1.0.0`, c],
      },
    ]);
    expect(res.body.meta).toMatchObject({ total: 2, truncated: false, depthLimit: DEPENDENTS_DEPTH_LIMIT });
    // Nobody delegates to the top of the chain.
    expect((await dependents(a)).body.data.dependents).toEqual([]);
  });

  it('lists each version of a diamond once, by its shortest path', async () => {
    const [bottom, left, right, top] = ['bottom', 'left', 'right', 'top'].map((n) => uniqueName(n)) as [
      string,
      string,
      string,
      string,
    ];
    await publishTo(org, bottom);
    await publishTo(org, left, [`${bottom}@1.0.0`]);
    await publishTo(org, right, [`${bottom}@latest`]);
    await publishTo(org, top, [`${left}@1.0.0`, `${right}@1.0.0`]);
    const res = await dependents(`${bottom}@1.0.0`);
    const listed = res.body.data.dependents;
    expect(listed.map((d) => [d.key, d.depth])).toEqual(
      [
        [`${left}@1.0.0`, 1],
        [`${right}@1.0.0`, 1],
        [`${top}@1.0.0`, 2],
      ].sort((x, y) => Number(x[1]) - Number(y[1]) || String(x[0]).localeCompare(String(y[0]))),
    );
    const topPath = listed.find((d) => d.key === `${top}@1.0.0`)?.path;
    expect(topPath?.[0]).toBe(`${top}@1.0.0`);
    expect(topPath?.at(-1)).toBe(`${bottom}@1.0.0`);
    expect(topPath).toHaveLength(3);
  });

  it(`stops ${DEPENDENTS_DEPTH_LIMIT} levels up`, async () => {
    const names = Array.from({ length: DEPENDENTS_DEPTH_LIMIT + 2 }, () => uniqueName('link'));
    await publishTo(org, names[0] as string);
    for (let i = 1; i < names.length; i++)
      await publishTo(org, names[i] as string, [`${names[i - 1]}@1.0.0`]);
    const res = await dependents(`${names[0]}@1.0.0`);
    expect(res.body.data.dependents).toHaveLength(DEPENDENTS_DEPTH_LIMIT);
    expect(Math.max(...res.body.data.dependents.map((d) => d.depth))).toBe(DEPENDENTS_DEPTH_LIMIT);
  });

  it('answers 404 for an unknown version and 400 for a malformed key', async () => {
    const ask = (key: string) => server.request('GET', `/registry/dependents?key=${encodeURIComponent(key)}`);
    expectRegistryError(await ask(`${uniqueName()}@1.0.0`), 404);
    expectRegistryError(await ask('Bad Key'), 400);
  });
});
