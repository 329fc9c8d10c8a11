/**
 * A small typed client for the registry HTTP API (docs/registry.md, docs/errors.md). Response
 * schemas are loose on purpose: the CLI reads the fields it prints and tolerates new ones, so a
 * newer server never breaks an older CLI.
 */
import { z } from 'zod';
import type { ExpertDefinition, ExpertStatus } from '../modules/registry/expert-definition.js';
import { EXIT_SERVER, EXIT_USER } from './errors.js';

const digestSchema = z.looseObject({
  key: z.string(),
  name: z.string(),
  version: z.string(),
  tags: z.array(z.string()).default([]),
  description: z.string().optional(),
  minRuntimeVersion: z.string().optional(),
  owner: z.looseObject({ name: z.string().optional() }).optional(),
  createdAt: z.string().optional(),
  updatedAt: z.string().optional(),
});

const registryExpertSchema = digestSchema.extend({
  status: z.string().optional(),
  instruction: z.string().optional(),
  skills: z.record(z.string(), z.unknown()).default({}),
  delegates: z.array(z.string()).default([]),
});

const listSchema = z.object({
  data: z.object({ experts: z.array(digestSchema) }),
  meta: z.looseObject({ total: z.number().optional() }).optional(),
});
const expertEnvelopeSchema = z.object({ data: z.object({ expert: registryExpertSchema }) });
const versionsSchema = z.object({
  data: z.object({ versions: z.array(digestSchema.partial({ tags: true })), latest: z.string().nullish() }),
});

export type ExpertDigest = z.infer<typeof digestSchema>;
export type RegistryExpert = z.infer<typeof registryExpertSchema>;
export type ExpertList = z.infer<typeof listSchema>;
export type ExpertVersions = z.infer<typeof versionsSchema>['data'];

export type ListQuery = {
  organizationId?: string;
  filter?: string;
  sort?: 'name' | 'version' | 'createdAt' | 'updatedAt';
  order?: 'asc' | 'desc';
  take?: number;
  skip?: number;
};

/** The registry answered with an error body `{ code, error, reason }`. */
export class RegistryError extends Error {
  constructor(
    readonly status: number,
    readonly title: string,
    readonly reason: string,
  ) {
    super(`${status} ${title}: ${reason}`);
    this.name = 'RegistryError';
  }

  /** 4xx is something the user can fix (bad key, auth, conflict); 5xx and 429 are the server's. */
  get exitCode(): number {
    return this.status >= 500 || this.status === 429 ? EXIT_SERVER : EXIT_USER;
  }
}

export class RegistryNetworkError extends Error {
  constructor(
    message: string,
    readonly hint?: string,
  ) {
    super(message);
    this.name = 'RegistryNetworkError';
  }
}

export type RegistryClientOptions = {
  baseUrl: string;
  apiKey?: string;
  /** Per request; the registry answers in milliseconds, so a long wait means something is wrong. */
  timeoutMs?: number;
  /** What to check when nothing answers (which setting gave the URL). */
  unreachableHint?: string;
};

export function createRegistryClient(options: RegistryClientOptions) {
  const base = options.baseUrl.replace(/\/+$/, '');
  const timeoutMs = options.timeoutMs ?? 30_000;

  async function request<T>(
    method: string,
    path: string,
    schema: z.ZodType<T> | null,
    body?: unknown,
  ): Promise<T> {
    const headers: Record<string, string> = { accept: 'application/json' };
    if (body !== undefined) headers['content-type'] = 'application/json';
    if (options.apiKey) headers.authorization = `Bearer ${options.apiKey}`;
    let response: Response;
    try {
      response = await fetch(`${base}${path}`, {
        method,
        headers,
        body: body === undefined ? undefined : JSON.stringify(body),
        signal: AbortSignal.timeout(timeoutMs),
      });
    } catch (error) {
      const cause = (error as { cause?: { code?: string; message?: string } }).cause;
      const why = cause?.code ?? cause?.message ?? (error as Error).message;
      throw new RegistryNetworkError(`cannot reach Cadre at ${base} (${why})`, options.unreachableHint);
    }
    const text = await response.text();
    if (!response.ok) throw errorFrom(response, text);
    if (schema === null) return undefined as T;
    let json: unknown;
    try {
      json = JSON.parse(text);
    } catch {
      throw new RegistryNetworkError(
        `the registry at ${base} answered ${method} ${path} with non-JSON content`,
      );
    }
    const parsed = schema.safeParse(json);
    if (!parsed.success) {
      throw new RegistryNetworkError(
        `the registry at ${base} answered ${method} ${path} with an unexpected shape`,
      );
    }
    return parsed.data;
  }

  const expertPath = (key: string) => `/registry/experts/${encodeURIComponent(key)}`;

  return {
    baseUrl: base,
    async list(query: ListQuery = {}): Promise<ExpertList> {
      const params = new URLSearchParams();
      for (const [k, v] of Object.entries(query)) if (v !== undefined) params.set(k, String(v));
      const qs = params.size > 0 ? `?${params}` : '';
      return request('GET', `/registry/experts${qs}`, listSchema);
    },
    async get(key: string): Promise<RegistryExpert> {
      return (await request('GET', expertPath(key), expertEnvelopeSchema)).data.expert;
    },
    /** The Expert, or undefined when the registry answers 404. */
    async find(key: string): Promise<RegistryExpert | undefined> {
      try {
        return (await request('GET', expertPath(key), expertEnvelopeSchema)).data.expert;
      } catch (error) {
        if (error instanceof RegistryError && error.status === 404) return undefined;
        throw error;
      }
    },
    async versions(name: string): Promise<ExpertVersions> {
      return (await request('GET', `${expertPath(name)}/versions`, versionsSchema)).data;
    },
    /**
     * Whether the server accepts the API key, before anything relies on it (reads do not check it). Any
     * authenticated endpoint answers 401 to a rejected key; 403 or 404 mean the key itself is accepted.
     */
    async checkCredential(): Promise<void> {
      try {
        await request('GET', '/api/v1/billing/plans', null);
      } catch (error) {
        if (error instanceof RegistryError && (error.status === 403 || error.status === 404)) return;
        throw error;
      }
    },
    async publish(payload: ExpertDefinition): Promise<RegistryExpert> {
      return (await request('POST', '/registry/experts', expertEnvelopeSchema, payload)).data.expert;
    },
    async update(key: string, body: { status?: ExpertStatus; tags?: string[] }): Promise<void> {
      // Only the update's status is relied upon (docs/registry.md).
      await request('POST', expertPath(key), null, body);
    },
    async remove(key: string): Promise<void> {
      await request('DELETE', expertPath(key), null);
    },
  };
}

export type RegistryClient = ReturnType<typeof createRegistryClient>;

function errorFrom(response: Response, text: string): RegistryError {
  try {
    const body = JSON.parse(text) as { error?: unknown; reason?: unknown; message?: unknown };
    // Registry shape: { code, error: "Not Found", reason }. Management shape (a proxy or a
    // rate limiter in front may answer with it): { error: { code, message } }.
    if (body.error && typeof body.error === 'object') {
      const inner = body.error as { code?: unknown; message?: unknown };
      const title = typeof inner.code === 'string' ? inner.code : response.statusText;
      return new RegistryError(
        response.status,
        title,
        typeof inner.message === 'string' ? inner.message : text,
      );
    }
    const title = typeof body.error === 'string' ? body.error : response.statusText;
    const reason =
      typeof body.reason === 'string' ? body.reason : typeof body.message === 'string' ? body.message : text;
    return new RegistryError(response.status, title, reason);
  } catch {
    return new RegistryError(response.status, response.statusText, text.slice(0, 200) || '(empty body)');
  }
}
