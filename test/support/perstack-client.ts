/**
 * A client of the Perstack-compatible registry face that behaves as Perstack's own client does on the wire
 * (docs/perstack.md lists the contract): written for these tests from that contract, not taken from
 * Perstack's code. What matters is kept exactly:
 *
 * - paths: `{base}/api/registry/v1/experts/` with the trailing slash for list and publish, the key through
 *   `encodeURIComponent` everywhere else, `/versions` after it;
 * - every request sends `Content-Type: application/json`, bodiless GETs and DELETEs too, and
 *   `Authorization: Bearer <key>` when it has a key; a body only when there is one;
 * - a non-2xx answer becomes `{ code, message: body.error ?? statusText, reason: body.reason }`;
 * - a 2xx answer must parse as JSON (a delete too) and pass schemas as strict as the client's: the record
 *   types, `minRuntimeVersion` exactly "v1.0" on every record (one other value fails the whole call), whole
 *   records in lists, whole digests in versions listings.
 */
import { z } from 'zod';

const when = z.string().refine((text) => !Number.isNaN(Date.parse(text)), 'a date');

const owner = z.object({ name: z.string().optional(), organizationId: z.string(), createdAt: when });

/** What every record and digest holds, as strictly as the client checks it. */
const common = {
  id: z.string(),
  key: z.string(),
  name: z.string(),
  minRuntimeVersion: z.literal('v1.0'),
  description: z.string(),
  owner,
  createdAt: when,
  updatedAt: when,
  tags: z.array(z.string()),
};

/**
 * Skills as Perstack's runtime reads them from a record (it applies no defaults): the complete shape of
 * Perstack's core skill schema, every defaulted field present and typed, each skill and interactive tool named
 * by its key, nothing else (`strictObject`); an SSE endpoint public HTTPS, as that schema requires.
 */
const strings = z.array(z.string());
const skillCore = {
  name: z.string().min(1),
  description: z.string().optional(),
  rule: z.string().optional(),
};
const publicHttps = z.url().refine((text) => {
  const url = new URL(text);
  return url.protocol === 'https:' && !/^(localhost|127\.|10\.|192\.168\.|\[)/.test(url.hostname);
}, 'a public HTTPS URL');
const perstackSkill = z.discriminatedUnion('type', [
  z.strictObject({
    type: z.literal('mcpStdioSkill'),
    ...skillCore,
    command: z.string().min(1),
    packageName: z.string().min(1).optional(),
    args: strings,
    pick: strings,
    omit: strings,
    requiredEnv: strings,
    lazyInit: z.boolean(),
  }),
  z.strictObject({
    type: z.literal('mcpSseSkill'),
    ...skillCore,
    endpoint: publicHttps,
    pick: strings,
    omit: strings,
  }),
  z.strictObject({
    type: z.literal('interactiveSkill'),
    ...skillCore,
    tools: z.record(
      z.string(),
      z.strictObject({
        name: z.string().min(1),
        description: z.string().optional(),
        inputJsonSchema: z.string(),
      }),
    ),
  }),
]);
const perstackSkills = z
  .record(z.string(), perstackSkill)
  .refine(
    (skills) => Object.entries(skills).every(([key, skill]) => skill.name === key),
    'each skill named by its key',
  )
  .refine(
    (skills) =>
      Object.values(skills).every(
        (skill) =>
          skill.type !== 'interactiveSkill' ||
          Object.entries(skill.tools).every(([key, tool]) => tool.name === key),
      ),
    'each tool named by its key',
  )
  .refine(
    (skills) => skills['@perstack/base']?.type === 'mcpStdioSkill',
    "the runtime's base skill, @perstack/base",
  );

export const perstackRecord = z.object({
  type: z.literal('registryExpert'),
  ...common,
  version: z.string(),
  status: z.enum(['available', 'deprecated', 'disabled']),
  instruction: z.string(),
  skills: perstackSkills,
  delegates: z.array(z.string()),
});
export type PerstackRecord = z.infer<typeof perstackRecord>;

const perstackDigest = z.object({
  type: z.literal('expertDigest'),
  ...common,
  version: z.string().optional(),
});

const oneRecord = z.object({ data: z.object({ expert: perstackRecord }) });
const listAnswer = z.object({
  data: z.object({ experts: z.array(perstackRecord) }),
  meta: z.object({ total: z.number(), take: z.number(), skip: z.number() }),
});
const versionsAnswer = z.object({
  data: z.object({ versions: z.array(perstackDigest), latest: z.string() }),
  meta: z.object({ total: z.number() }),
});
const deleteAnswer = z.object({});

export interface PerstackError {
  code: number;
  message: string;
  reason?: unknown;
}
export type PerstackResult<T> = { ok: true; data: T } | { ok: false; error: PerstackError };

export interface ListParams {
  organizationId?: string;
  filter?: string;
  sort?: 'name' | 'version' | 'createdAt' | 'updatedAt';
  order?: 'asc' | 'desc';
  take?: number;
  skip?: number;
}

export interface PublishInput {
  name: string;
  version: string;
  minRuntimeVersion: string;
  description: string;
  instruction: string;
  skills: Record<string, unknown>;
  delegates?: string[];
  tags?: string[];
}

/** Every request this client sent, as the server saw its method, path and headers (for wire assertions). */
export interface SentRequest {
  method: string;
  url: string;
  headers: Record<string, string>;
  body: string | undefined;
}

export function createPerstackClient(baseUrl: string, apiKey?: string) {
  const sent: SentRequest[] = [];

  async function call<T>(
    method: string,
    path: string,
    schema: z.ZodType<T>,
    body?: unknown,
  ): Promise<PerstackResult<T>> {
    const headers: Record<string, string> = { 'Content-Type': 'application/json' };
    if (apiKey) headers.Authorization = `Bearer ${apiKey}`;
    const payload = body ? JSON.stringify(body) : undefined;
    sent.push({ method, url: baseUrl + path, headers, body: payload });
    const response = await fetch(baseUrl + path, { method, headers, body: payload });
    if (!response.ok) {
      const errorBody = await response.json().catch(() => undefined);
      if (typeof errorBody === 'object' && errorBody !== null) {
        const { error, reason } = errorBody as { error?: unknown; reason?: unknown };
        const message = typeof error === 'string' ? error : String(error ?? response.statusText);
        return { ok: false, error: { code: response.status, message, reason } };
      }
      return { ok: false, error: { code: response.status, message: response.statusText } };
    }
    // The client parses every 2xx as JSON: an empty body would throw here, as it does there.
    const parsed = schema.safeParse(await response.json());
    if (!parsed.success) {
      return { ok: false, error: { code: 0, message: 'Response validation failed', reason: parsed.error } };
    }
    return { ok: true, data: parsed.data };
  }

  const keyPath = (key: string) => `/api/registry/v1/experts/${encodeURIComponent(key)}`;

  return {
    sent,
    async get(key: string): Promise<PerstackResult<PerstackRecord>> {
      const result = await call('GET', keyPath(key), oneRecord);
      return result.ok ? { ok: true, data: result.data.data.expert } : result;
    },
    async list(params: ListParams = {}) {
      const query = new URLSearchParams();
      for (const [name, value] of Object.entries(params)) {
        if (value !== undefined && value !== '') query.set(name, String(value));
      }
      const text = query.toString();
      const result = await call('GET', `/api/registry/v1/experts/${text ? `?${text}` : ''}`, listAnswer);
      return result.ok
        ? { ok: true as const, data: { data: result.data.data.experts, meta: result.data.meta } }
        : result;
    },
    async create(input: PublishInput): Promise<PerstackResult<PerstackRecord>> {
      const result = await call('POST', '/api/registry/v1/experts/', oneRecord, input);
      return result.ok ? { ok: true, data: result.data.data.expert } : result;
    },
    async update(
      key: string,
      input: { status?: 'available' | 'deprecated' | 'disabled'; tags?: string[] },
    ): Promise<PerstackResult<PerstackRecord>> {
      const result = await call('POST', keyPath(key), oneRecord, input);
      return result.ok ? { ok: true, data: result.data.data.expert } : result;
    },
    async delete(key: string): Promise<PerstackResult<undefined>> {
      const result = await call('DELETE', keyPath(key), deleteAnswer);
      return result.ok ? { ok: true, data: undefined } : result;
    },
    async getVersions(key: string) {
      const result = await call('GET', `${keyPath(key)}/versions`, versionsAnswer);
      return result.ok
        ? {
            ok: true as const,
            data: {
              versions: result.data.data.versions,
              latest: result.data.data.latest,
              total: result.data.meta.total,
            },
          }
        : result;
    },
  };
}

export type PerstackClient = ReturnType<typeof createPerstackClient>;

/**
 * The runtime's resolution of what an Expert delegates to: starting from the keys it names, each missing one
 * is read from the registry and its own delegates queued, until every key is known; a failed read stops it
 * with "Failed to resolve delegate "<key>": <message>", as the runtime says.
 */
export async function resolveDelegation(
  client: PerstackClient,
  start: string[],
): Promise<Map<string, PerstackRecord>> {
  const resolved = new Map<string, PerstackRecord>();
  const pending = [...start];
  while (pending.length > 0) {
    const key = pending.shift() as string;
    if (resolved.has(key)) continue;
    const result = await client.get(key);
    if (!result.ok) throw new Error(`Failed to resolve delegate "${key}": ${result.error.message}`);
    resolved.set(key, result.data);
    for (const skill of Object.values(result.data.skills)) {
      const type = (skill as { type?: unknown }).type;
      if (type !== 'mcpStdioSkill' && type !== 'mcpSseSkill' && type !== 'interactiveSkill') {
        throw new Error(`Unknown skill type: ${String(type)}`);
      }
    }
    pending.push(...result.data.delegates.filter((next) => !resolved.has(next)));
  }
  return resolved;
}
