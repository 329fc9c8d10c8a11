import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { answersInRegistryShape } from '../src/http/faces.js';
import { redactUrl } from '../src/http/logger.js';
import { isPublicAddress } from '../src/lib/outbound/address-policy.js';
import { createOrganization, createProject, type TestOrganization } from './support/fixtures.js';
import { captureLogs } from './support/log-capture.js';
import { ADMIN_TOKEN, startServer, type TestServer } from './support/server.js';

interface Operation {
  method: string;
  path: string;
  operationId: string;
  parameters: Array<{ name: string; in: 'path' | 'query' | 'header'; schema?: Record<string, unknown> }>;
  bodyProperties: string[];
  statuses: Set<number>;
}

/** Every operation `/openapi.json` documents, with its parameters and documented answer statuses. */
function operationsOf(document: {
  paths: Record<string, Record<string, Record<string, unknown>>>;
}): Operation[] {
  const operations: Operation[] = [];
  for (const [path, item] of Object.entries(document.paths)) {
    for (const [method, op] of Object.entries(item)) {
      if (!['get', 'post', 'put', 'patch', 'delete'].includes(method)) continue;
      const body = (op.requestBody as { content?: Record<string, { schema?: { properties?: object } }> })
        ?.content?.['application/json']?.schema;
      operations.push({
        method: method.toUpperCase(),
        path,
        operationId: String(op.operationId),
        parameters: (op.parameters as Operation['parameters']) ?? [],
        bodyProperties: Object.keys(body?.properties ?? {}),
        statuses: new Set(Object.keys(op.responses as object).map(Number)),
      });
    }
  }
  return operations;
}

// Values chosen to break parsers, validators and routers.
const nasty = fc.constantFrom(
  '',
  ' ',
  '0',
  '-1',
  '1e309',
  'NaN',
  'null',
  'true',
  '[]',
  '{}',
  '../../../etc/passwd',
  '..%2F..%2Fetc%2Fpasswd',
  '%00',
  '\u0000',
  '\uFEFF',
  '\uD800',
  '𝓬𝓪𝓭𝓻𝓮',
  'ıİ',
  'é'.normalize('NFD'),
  '<script>alert(1)</script>',
  "' OR 1=1 --",
  'a'.repeat(5_000),
  '9'.repeat(400),
  '@scope/name',
  `cadre_${'x'.repeat(40)}`,
);
const scalar = fc.oneof(
  nasty,
  fc.string({ unit: 'grapheme', maxLength: 40 }),
  fc.integer(),
  fc.constantFrom(0, -1, 1, 20, 100, 101, 500, 501, 2 ** 31, 2 ** 53, Number.MAX_SAFE_INTEGER + 2, 0.5, -0),
);
const jsonish: fc.Arbitrary<unknown> = fc.oneof(
  { depthSize: 'small' },
  scalar,
  fc.constant(null),
  fc.boolean(),
  fc.array(scalar, { maxLength: 5 }),
  fc.dictionary(fc.string({ maxLength: 10 }), scalar, { maxKeys: 4 }),
  fc.jsonValue({ maxDepth: 3 }),
);

/**
 * Percent-encodes every byte of a path segment but letters and digits (dots too, so the client sends `..` as
 * is and the router matches); a lone surrogate becomes U+FFFD as any client would send it.
 */
const segment = (value: string) =>
  [...new TextEncoder().encode(value)]
    .map((byte) =>
      /[A-Za-z0-9]/.test(String.fromCharCode(byte))
        ? String.fromCharCode(byte)
        : `%${byte.toString(16).toUpperCase().padStart(2, '0')}`,
    )
    .join('') || '%20';

describe('fuzzing every operation of /openapi.json', () => {
  let server: TestServer;
  let org: TestOrganization;
  let operations: Operation[];
  const known: Record<string, string[]> = {};
  const { lines, logger } = captureLogs();

  beforeAll(async () => {
    // Many generated requests carry bad credentials: keep the failed-authentication limit out of the way.
    server = await startServer({
      logger,
      logRequests: false,
      rateLimits: { authFailures: 1_000_000 },
    });
    org = await createOrganization(server, 'team');
    const project = await createProject(server, org);
    const keys = await server.request<{ apiKeys: Array<{ id: string }> }>('GET', '/api/v1/api-keys', {
      key: org.ownerKey,
    });
    // Real ids mixed into path parameters, so the fuzz reaches past "not found" too.
    known.org = [org.id, org.slug];
    known.apiKeyId = keys.body.apiKeys.map((key) => key.id);
    known.projectId = [project.project.id];
    known.environmentId = project.environments.map((environment) => environment.id);
    known.userId = [org.ownerId];
    const doc = await server.request<Parameters<typeof operationsOf>[0]>('GET', '/openapi.json');
    operations = operationsOf(doc.body);
  });
  afterAll(() => server.close());

  it('covers the operations main serves now', () => {
    const ids = operations.map((op) => op.operationId);
    expect(ids).toEqual(expect.arrayContaining(['createApiKey', 'listApiKeys', 'adminCreateOrganization']));
    expect(ids).toEqual(expect.arrayContaining(['deleteConnection', 'listAuditEvents']));
  });

  it("answers a body nested 20,000 levels deep ([[[…]]]) with a 4xx in its face's shape on every operation", async () => {
    const deep = `${'['.repeat(20_000)}${']'.repeat(20_000)}`;
    const failures: string[] = [];
    for (const op of operations.filter((o) => o.method !== 'GET')) {
      const path = op.path.replace(/\{(\w+)\}/g, (_, name: string) => segment(known[name]?.[0] ?? 'x'));
      // The whole body, and each documented field in turn (and a publish's, whose schema is a reference).
      const fields = new Set([...op.bodyProperties, 'name', 'skills']);
      const bodies = [deep, ...[...fields].map((field) => `{${JSON.stringify(field)}:${deep}}`)];
      for (const [credential, key] of [
        ['owner', org.ownerKey],
        ['admin', ADMIN_TOKEN],
      ] as const) {
        for (const body of bodies) {
          const res = await server.request(op.method, path, { key, rawBody: body });
          const where = `${op.method} ${path} (${credential}, ${body.slice(0, 30)}) → ${res.status} ${res.text.slice(0, 160)}`;
          if (res.status >= 500) failures.push(where);
          else if (res.status >= 400) {
            const parsed = res.body as Record<string, unknown>;
            const shapeOk = answersInRegistryShape(path)
              ? typeof parsed.code === 'number' && typeof parsed.reason === 'string'
              : typeof (parsed.error as { code?: unknown })?.code === 'string';
            if (!shapeOk) failures.push(`shape: ${where}`);
          }
        }
      }
    }
    expect(failures).toEqual([]);
  }, 120_000);

  it('never answers 500; every answer has a documented status and, if an error, the documented shape', async () => {
    const credential = fc.constantFrom<'none' | 'owner' | 'admin' | 'garbage'>(
      'none',
      'owner',
      'admin',
      'garbage',
    );
    const bodyKind = fc.constantFrom('none', 'json', 'shaped', 'raw', 'huge', 'form', 'utf16', 'badutf8');
    // A new seed each run widens coverage over time; a failure names it (FUZZ_SEED=… reproduces it).
    const seed = Number(process.env.FUZZ_SEED ?? Math.floor(Math.random() * 2 ** 31));
    const failures: string[] = [];
    let requests = 0;
    let expected = 0;
    for (const op of operations) {
      // A long form /api/v1/organizations/{org}/… runs its short form's handler behind one check of {org}
      // (src/http/path-names.ts): fewer runs fuzz that check without paying the handler's twice.
      const runs = op.operationId.endsWith('InOrganization') ? 25 : 100;
      expected += runs;
      await fc
        .assert(
          fc.asyncProperty(
            fc.record({
              params: fc.dictionary(fc.constantFrom('x'), fc.oneof(nasty, fc.string({ maxLength: 30 })), {
                maxKeys: 0,
              }),
              pathValues: fc.array(
                fc.oneof(nasty, fc.string({ unit: 'grapheme', maxLength: 30 }), fc.constant('KNOWN')),
                {
                  minLength: 4,
                  maxLength: 4,
                },
              ),
              query: fc.array(
                fc.tuple(
                  fc.oneof(
                    fc.constantFrom(
                      ...op.parameters.filter((p) => p.in === 'query').map((p) => p.name),
                      'extra',
                    ),
                    fc.string({ maxLength: 8 }),
                  ),
                  scalar.map(String),
                ),
                { maxLength: 3 },
              ),
              credential,
              bodyKind,
              json: jsonish,
              shaped: fc.dictionary(
                fc.oneof(fc.constantFrom(...op.bodyProperties, 'unknown'), fc.string({ maxLength: 6 })),
                jsonish,
                { maxKeys: 5 },
              ),
            }),
            async (input) => {
              let i = 0;
              const path = op.path.replace(/\{(\w+)\}/g, (_, name: string) => {
                const value = input.pathValues[i++ % 4]!;
                const real = known[name];
                return segment(value === 'KNOWN' && real?.length ? real[i % real.length]! : value);
              });
              const search = new URLSearchParams(input.query).toString();
              const headers: Record<string, string> = {};
              if (input.credential === 'owner') headers.authorization = `Bearer ${org.ownerKey}`;
              if (input.credential === 'admin') headers.authorization = `Bearer ${ADMIN_TOKEN}`;
              if (input.credential === 'garbage') headers.authorization = 'Bearer cadre_ünïcödé garbage';
              let body: string | Buffer | undefined;
              if (op.method !== 'GET') {
                switch (input.bodyKind) {
                  case 'json':
                    body = JSON.stringify(input.json) ?? 'null';
                    headers['content-type'] = 'application/json';
                    break;
                  case 'shaped':
                    body = JSON.stringify(input.shaped);
                    headers['content-type'] = 'application/json';
                    break;
                  case 'raw':
                    body = '{"grants": {"type": "organization", "permissions": [';
                    headers['content-type'] = 'application/json';
                    break;
                  case 'huge':
                    body = JSON.stringify({ name: 'x'.repeat(1024 * 1024 + 10) });
                    headers['content-type'] = 'application/json';
                    break;
                  case 'form':
                    body = 'name=a&grants=b';
                    headers['content-type'] = 'application/x-www-form-urlencoded';
                    break;
                  case 'utf16':
                    body = Buffer.from(JSON.stringify(input.shaped), 'utf16le');
                    headers['content-type'] = 'application/json; charset=utf-16';
                    break;
                  case 'badutf8':
                    body = Buffer.from([
                      0x7b, 0x22, 0x6e, 0x22, 0x3a, 0x22, 0xff, 0xfe, 0xc3, 0x28, 0x22, 0x7d,
                    ]);
                    headers['content-type'] = 'application/json';
                    break;
                }
              }
              const url = `${server.url}${path}${search ? `?${search}` : ''}`;
              // The operation's own answer: a redirect (a sign-in callback's 302) is checked, not followed.
              const res = await fetch(url, { method: op.method, headers, body, redirect: 'manual' });
              const text = await res.text();
              requests++;
              const where = `${op.method} ${url.slice(0, 200)} (${input.bodyKind}, ${input.credential}) → ${res.status} ${text.slice(0, 200)}`;
              if (res.status >= 500 && res.status !== 503) failures.push(`5xx: ${where}`);
              if (!op.statuses.has(res.status)) failures.push(`undocumented status: ${where}`);
              if (res.status >= 400) {
                const parsed = JSON.parse(text) as Record<string, unknown>;
                const shapeOk = answersInRegistryShape(path)
                  ? typeof parsed.code === 'number' && typeof parsed.reason === 'string'
                  : typeof (parsed.error as { code?: unknown })?.code === 'string' &&
                    (parsed.error as { requestId?: unknown }).requestId === res.headers.get('x-request-id');
                if (!shapeOk) failures.push(`shape: ${where}`);
                if ((res.status === 429 || res.status === 503) && !res.headers.get('retry-after')) {
                  failures.push(`no Retry-After: ${where}`);
                }
              }
              if (res.headers.get('x-powered-by')) failures.push(`x-powered-by: ${where}`);
              return failures.length === 0;
            },
          ),
          { numRuns: runs, seed, endOnFailure: true },
        )
        .catch((error: Error) => {
          if (!failures.length) failures.push(`${op.operationId}: ${error.message.slice(0, 800)}`);
        });
    }
    expect({ seed, failures: failures.slice(0, 10) }).toEqual({ seed, failures: [] });
    expect(requests).toBe(expected);
    const log = lines.join('');
    expect(log).not.toContain('"level":50');
    expect(log).not.toContain(org.ownerKey);
    expect(log).not.toContain(ADMIN_TOKEN);
    // 100 requests for every operation (25 for a long form): the time grows with the API, not a hang.
  }, 300_000);
});

describe('fuzzing the outbound address policy and the log redaction', () => {
  const byte = fc.integer({ min: 0, max: 255 });
  /** An IPv4 address no request on a user's behalf may reach: loopback, private, metadata, CGNAT, "this network". */
  const privateV4 = fc.oneof(
    fc.tuple(fc.constant(127), byte, byte, byte),
    fc.tuple(fc.constant(10), byte, byte, byte),
    fc.tuple(fc.constant(172), fc.integer({ min: 16, max: 31 }), byte, byte),
    fc.tuple(fc.constant(192), fc.constant(168), byte, byte),
    fc.tuple(fc.constant(169), fc.constant(254), byte, byte),
    fc.tuple(fc.constant(100), fc.integer({ min: 64, max: 127 }), byte, byte),
    fc.tuple(fc.constant(0), byte, byte, byte),
  );
  const hex = (a: number, b: number) => ((a << 8) | b).toString(16);

  it('every IPv6 form that carries a private IPv4 address is refused, however it is written', () => {
    fc.assert(
      fc.property(privateV4, fc.boolean(), fc.integer({ min: 0, max: 7 }), ([a, b, c, d], upper, form) => {
        const dotted = `${a}.${b}.${c}.${d}`;
        const low = `${hex(a, b)}:${hex(c, d)}`;
        const teredo = `${hex(a ^ 0xff, b ^ 0xff)}:${hex(c ^ 0xff, d ^ 0xff)}`;
        const forms = [
          `::ffff:${dotted}`, // IPv4-mapped, judged by its IPv4 address
          `0:0:0:0:0:ffff:${low}`,
          `::ffff:0:${dotted}`, // IPv4-translated
          `::${dotted}`, // IPv4-compatible
          `64:ff9b::${low}`, // NAT64, judged by its IPv4 address
          `64:ff9b:1::${low}`, // local-use NAT64
          `2002:${low}::1`, // 6to4
          `2001:0:4136:e378:8000:63bf:${teredo}`, // Teredo
        ];
        const address = upper ? forms[form]!.toUpperCase() : forms[form]!;
        expect(isPublicAddress(address), address).toBe(false);
        expect(isPublicAddress(dotted), dotted).toBe(false);
      }),
      { numRuns: 2_000 },
    );
  });

  it('an API key anywhere in a URL never reaches the log', () => {
    const alphanumeric = fc.constantFrom(...'0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ');
    const key = fc
      .array(alphanumeric, { minLength: 40, maxLength: 40 })
      .map((chars) => `cadre_${chars.join('')}`);
    const segment = fc.stringMatching(/^[a-z0-9-]{0,12}$/);
    fc.assert(
      fc.property(
        fc.array(segment, { maxLength: 4 }),
        key,
        fc.constantFrom('path', 'query', 'bearer', 'encoded'),
        (segments, secret, where) => {
          const encoded = secret.replace(/^c/, '%63').replace('_', '%5F');
          const url =
            where === 'path'
              ? `/${[...segments, secret].join('/')}`
              : where === 'query'
                ? `/${segments.join('/')}?x=${secret}&limit=5`
                : where === 'bearer'
                  ? `/${segments.join('/')}?auth=Bearer%20${secret}`
                  : `/${segments.join('/')}/${encoded}`;
          const logged = redactUrl(url);
          expect(logged.toLowerCase(), url).not.toContain(secret.slice(6, 22).toLowerCase());
        },
      ),
      { numRuns: 1_000 },
    );
  });
});
