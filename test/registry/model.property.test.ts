import fc from 'fast-check';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createOrganization, type TestOrganization } from '../support/fixtures.js';
import { startServer, type TestServer } from '../support/server.js';
import {
  expertBody,
  invariantViolations,
  keyPath,
  publish,
  uniqueName,
  type VersionsAnswer,
} from './helpers.js';

// Random sequences of publish / update / delete against one name, checked after every step against a
// model that is nothing but the rules of docs/registry.md written as plainly as possible.

type Status = 'available' | 'deprecated' | 'disabled';
interface ModelVersion {
  version: string;
  tags: string[];
  status: Status;
}
interface Model {
  live: ModelVersion[]; // in publish order
  everPublished: Set<string>;
}

const VERSIONS = ['1.0.0', '1.1.0', '2.0.0-rc.1', '2.0.0', '0.9.0'];
const TAGS = ['stable', 'beta', 'lts'];
const TRANSITIONS: Record<Status, Status[]> = {
  available: ['deprecated', 'disabled'],
  deprecated: ['disabled', 'available'],
  disabled: [],
};

const tagList = fc.subarray(TAGS).chain((tags) => fc.shuffledSubarray(tags, { minLength: tags.length }));
const versionRef = fc.constantFrom(...VERSIONS);
const op = fc.oneof(
  fc.record({ kind: fc.constant('publish' as const), version: versionRef, tags: tagList }),
  fc.record({ kind: fc.constant('tags' as const), version: versionRef, tags: tagList }),
  fc.record({
    kind: fc.constant('status' as const),
    version: versionRef,
    status: fc.constantFrom<Status>('available', 'deprecated', 'disabled'),
  }),
  fc.record({ kind: fc.constant('delete' as const), version: versionRef }),
  fc.record({ kind: fc.constant('deleteLatest' as const) }),
  fc.record({ kind: fc.constant('byTag' as const), tag: fc.constantFrom(...TAGS) }),
);
type Op = typeof op extends fc.Arbitrary<infer T> ? T : never;

const latestOf = (model: Model) => model.live.at(-1);

function giveTags(model: Model, target: ModelVersion, tags: string[]) {
  for (const other of model.live)
    if (other !== target) other.tags = other.tags.filter((t) => !tags.includes(t));
  target.tags = [...tags];
}

/** Applies `op` to the model; answers the status the API must give. */
function step(model: Model, action: Op): number {
  const find = (version: string) => model.live.find((v) => v.version === version);
  switch (action.kind) {
    case 'publish': {
      if (model.everPublished.has(action.version)) return 400;
      const created: ModelVersion = { version: action.version, tags: [], status: 'available' };
      model.everPublished.add(action.version);
      model.live.push(created);
      giveTags(model, created, action.tags);
      return 200;
    }
    case 'tags': {
      const target = find(action.version);
      if (!target) return 404;
      giveTags(model, target, action.tags);
      return 200;
    }
    case 'status': {
      const target = find(action.version);
      if (!target) return 404;
      if (!TRANSITIONS[target.status].includes(action.status)) return 400;
      target.status = action.status;
      return 200;
    }
    case 'delete':
    case 'deleteLatest': {
      const target = action.kind === 'delete' ? find(action.version) : latestOf(model);
      if (!target) return 404;
      model.live = model.live.filter((v) => v !== target);
      return 200;
    }
    case 'byTag':
      return model.live.some((v) => v.tags.includes(action.tag)) ? 200 : 404;
  }
}

let server: TestServer;
let org: TestOrganization;
beforeAll(async () => {
  server = await startServer();
  org = await createOrganization(server);
});
afterAll(() => server.close());

async function perform(name: string, action: Op) {
  const key = org.ownerKey;
  switch (action.kind) {
    case 'publish':
      return publish(server, key, expertBody(name, action.version, { tags: action.tags }));
    case 'tags':
      return server.request('POST', keyPath(`${name}@${action.version}`), {
        key,
        body: { tags: action.tags },
      });
    case 'status':
      return server.request('POST', keyPath(`${name}@${action.version}`), {
        key,
        body: { status: action.status },
      });
    case 'delete':
      return server.request('DELETE', keyPath(`${name}@${action.version}`), { key });
    case 'deleteLatest':
      return server.request('DELETE', keyPath(name), { key });
    case 'byTag':
      return server.request('GET', keyPath(`${name}@${action.tag}`));
  }
}

it('latest, tags, status and version reservation follow the model over random operation sequences', async () => {
  await fc.assert(
    fc.asyncProperty(fc.array(op, { minLength: 1, maxLength: 14 }), async (ops) => {
      const name = uniqueName('model');
      const model: Model = { live: [], everPublished: new Set() };
      for (const action of ops) {
        const expected = step(model, action);
        const res = await perform(name, action);
        expect(res.status, `${JSON.stringify(action)}: ${res.text}`).toBe(expected);
        const listing = await server.request<
          VersionsAnswer & { data: { versions: Array<{ version: string; tags: string[] }> } }
        >('GET', keyPath(name, '/versions'));
        if (model.live.length === 0) {
          expect(listing.status).toBe(404);
          continue;
        }
        const latest = latestOf(model)!;
        expect(listing.body.data.latest).toBe(latest.version);
        const actual = Object.fromEntries(listing.body.data.versions.map((v) => [v.version, v.tags]));
        const wanted = Object.fromEntries(
          model.live.map((v) => [v.version, v === latest ? ['latest', ...v.tags] : v.tags]),
        );
        expect(actual).toEqual(wanted);
        const bare = await server.request<{ data: { expert: { version: string; status: string } } }>(
          'GET',
          keyPath(name),
        );
        expect(bare.body.data.expert.version).toBe(latest.version);
        expect(bare.body.data.expert.status).toBe(latest.status);
      }
    }),
    { numRuns: 40 },
  );
  expect(await invariantViolations(server.db.database)).toEqual([]);
});
