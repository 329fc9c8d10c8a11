/**
 * A small registry on loopback that speaks the registry HTTP API of docs/registry.md, for CLI tests until the
 * real registry is merged (the lead replaces these with end-to-end tests against Cadre itself).
 * It records every request so tests can assert what the CLI sent.
 */
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { integrityOf } from '../../src/modules/supply-chain/integrity.js';
import {
  type ExpertDefinition,
  expertDefinitionSchema,
  parseExpertKey,
  tryParseExpertKey,
} from '../../src/shared/expert/expert-definition.js';

type RecordedRequest = { method: string; url: string; authorization?: string; body?: unknown };
type Version = { def: ExpertDefinition; tags: string[]; status: string; createdAt: string };

export type FakeRegistry = {
  url: string;
  requests: RecordedRequest[];
  /** The next request is answered with this status and body instead of being handled. */
  failNext: (status: number, body: unknown) => void;
  close: () => Promise<void>;
};

export const FAKE_API_KEY = 'cadre_testkey';

export async function startFakeRegistry(): Promise<FakeRegistry> {
  const experts = new Map<string, Version[]>();
  const requests: RecordedRequest[] = [];
  let failure: { status: number; body: unknown } | undefined;
  let clock = 0;

  const latestOf = (name: string) => experts.get(name)?.at(-1);
  const resolve = (key: string): Version | undefined => {
    const { name, version, tag } = parseExpertKey(key);
    const versions = experts.get(name) ?? [];
    if (version) return versions.find((v) => v.def.version === version);
    if (tag && tag !== 'latest') return versions.find((v) => v.tags.includes(tag));
    return versions.at(-1);
  };
  const view = (v: Version) => ({
    type: 'registryExpert',
    id: `id-${v.def.name}-${v.def.version}`,
    key: `${v.def.name}@${v.def.version}`,
    ...v.def,
    delegates: v.def.delegates ?? [],
    integrity: integrityOf(v.def),
    tags: latestOf(v.def.name) === v ? [...v.tags, 'latest'] : v.tags,
    status: v.status,
    owner: { name: 'demo', organizationId: 'org1', createdAt: v.createdAt },
    createdAt: v.createdAt,
    updatedAt: v.createdAt,
  });

  const server: Server = createServer(async (req, res) => {
    const body = await readBody(req);
    const url = new URL(req.url ?? '/', 'http://x');
    requests.push({
      method: req.method ?? '',
      url: req.url ?? '',
      authorization: req.headers.authorization,
      body,
    });
    const send = (status: number, payload?: unknown) => {
      res.writeHead(status, { 'content-type': 'application/json' });
      res.end(payload === undefined ? '' : JSON.stringify(payload));
    };
    const fail = (status: number, error: string, reason: string) =>
      send(status, { code: status, error, reason });
    if (failure) {
      const { status, body: failBody } = failure;
      failure = undefined;
      return send(status, failBody);
    }
    // The one management endpoint the CLI calls: `cadre publish` checks its key there first.
    if (url.pathname === '/api/v1/me') {
      if (req.headers.authorization !== `Bearer ${FAKE_API_KEY}`)
        return send(401, { error: { code: 'unauthorized', message: 'Invalid API key', requestId: 'r1' } });
      return send(200, { data: { organization: { id: 'org1', slug: 'demo', name: 'demo' } } });
    }
    const writes = req.method !== 'GET';
    if (writes && req.headers.authorization !== `Bearer ${FAKE_API_KEY}`) {
      return fail(401, 'Unauthorized', 'missing or invalid API key');
    }
    const prefix = '/registry/experts';
    if (url.pathname === prefix && req.method === 'GET') {
      const list = [...experts.keys()].map((n) => view(latestOf(n)!));
      return send(200, { data: { experts: list }, meta: { total: list.length, take: 100, skip: 0 } });
    }
    if (url.pathname === prefix && req.method === 'POST') {
      const parsed = expertDefinitionSchema.safeParse(body);
      if (!parsed.success) return fail(400, 'Bad Request', parsed.error.issues[0]?.message ?? 'invalid body');
      const def = parsed.data;
      if (resolve(`${def.name}@${def.version}`))
        return fail(400, 'Bad Request', `${def.name}@${def.version} already exists`);
      for (const d of def.delegates ?? []) {
        if (!resolve(d)) return fail(400, 'Bad Request', `delegate ${d} is not a published Expert`);
      }
      const version = {
        def,
        tags: def.tags ?? [],
        status: 'available',
        createdAt: new Date(++clock * 1000).toISOString(),
      };
      experts.set(def.name, [...(experts.get(def.name) ?? []), version]);
      return send(200, { data: { expert: view(version) } });
    }
    if (!url.pathname.startsWith(`${prefix}/`)) return fail(404, 'Not Found', 'no such route');
    let rest = url.pathname.slice(prefix.length + 1);
    const versionsRoute = rest.endsWith('/versions');
    if (versionsRoute) rest = rest.slice(0, -'/versions'.length);
    const key = decodeURIComponent(rest);
    if (!tryParseExpertKey(key).ok) return fail(400, 'Bad Request', `invalid Expert key ${key}`);
    if (versionsRoute) {
      const versions = experts.get(parseExpertKey(key).name) ?? [];
      if (versions.length === 0) return fail(404, 'Not Found', `Expert ${key} not found`);
      const items = versions.map((v) => {
        const { type: _t, ...full } = view(v);
        return {
          type: 'expertDigest',
          id: full.id,
          key: full.key,
          name: full.name,
          version: full.version,
          tags: full.tags,
        };
      });
      return send(200, {
        data: { versions: items, latest: versions.at(-1)?.def.version },
        meta: { total: items.length },
      });
    }
    const found = resolve(key);
    if (!found) return fail(404, 'Not Found', `Expert ${key} not found`);
    if (req.method === 'GET') return send(200, { data: { expert: view(found) } });
    if (req.method === 'POST') {
      const update = body as { status?: string; tags?: string[] };
      if (update.status) {
        if (found.status === 'disabled' || found.status === update.status) {
          return fail(400, 'Bad Request', `cannot change status from ${found.status} to ${update.status}`);
        }
        found.status = update.status;
      }
      if (update.tags) found.tags = update.tags;
      return send(200, { data: { expert: view(found) } });
    }
    if (req.method === 'DELETE') {
      const list = experts.get(found.def.name) ?? [];
      experts.set(
        found.def.name,
        list.filter((v) => v !== found),
      );
      if (experts.get(found.def.name)?.length === 0) experts.delete(found.def.name);
      res.writeHead(200);
      return res.end();
    }
    return fail(404, 'Not Found', 'no such route');
  });
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    failNext: (status, body) => {
      failure = { status, body };
    },
    close: () => new Promise((done) => server.close(() => done())),
  };
}

async function readBody(req: IncomingMessage): Promise<unknown> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  const text = Buffer.concat(chunks).toString('utf8');
  return text === '' ? undefined : JSON.parse(text);
}
