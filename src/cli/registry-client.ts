/**
 * The registry HTTP API (docs/registry.md, docs/errors.md) through openapi-fetch, typed from the service's
 * OpenAPI document (api-schema.d.ts). Nothing else is checked at run time but the envelope the CLI reads
 * (`data.experts`, `data.expert`, `data.versions`): a newer server's extra fields never break an older CLI.
 */

import type { components, operations } from '../api-schema.js';
import type { ExpertDefinition, ExpertStatus } from '../shared/expert/expert-definition.js';
import { type CadreApi, createCadreApi, type RequestBody } from './api.js';
import { EXIT_SERVER, EXIT_USER } from './errors.js';
import { foreignJson } from './wrong-server.js';

export type RegistryExpert = components['schemas']['RegistryExpert'];
export type ExpertDiff = components['schemas']['ExpertDiff'];
export type ExpertList = operations['listExperts']['responses'][200]['content']['application/json'];
export type ExpertVersions =
  operations['getExpertVersions']['responses'][200]['content']['application/json']['data'];

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
  const api: CadreApi = createCadreApi({
    baseUrl: base,
    token: options.apiKey,
    ...(options.timeoutMs === undefined ? {} : { timeoutMs: options.timeoutMs }),
    unreachable: (_base, why) =>
      new RegistryNetworkError(`cannot reach Cadre at ${base} (${why})`, options.unreachableHint),
    refused: ({ status, statusText, text, json }) => errorFrom(status, statusText, text, json),
  });

  /** The body's `data`, when it holds `field` of the expected kind (`asked`: what was called, for the error). */
  async function dataWith<D extends Record<string, unknown>>(
    asked: string,
    pending: Promise<{ data?: { data: D } }>,
    field: keyof D & string,
    kind: 'array' | 'object',
  ): Promise<D> {
    const { data } = await pending;
    const value = (data?.data as Record<string, unknown> | undefined)?.[field];
    if (kind === 'array' ? Array.isArray(value) : value !== null && typeof value === 'object')
      return data!.data;
    throw foreignJson(base, asked);
  }

  const expertKey = (key: string) => ({ params: { path: { expertKey: key } } });
  const get = async (key: string): Promise<RegistryExpert> =>
    (
      await dataWith(
        `GET /registry/experts/${encodeURIComponent(key)}`,
        api.GET('/registry/experts/{expertKey}', expertKey(key)),
        'expert',
        'object',
      )
    ).expert;

  return {
    baseUrl: base,
    async list(query: ListQuery = {}): Promise<ExpertList> {
      const { take, skip, ...rest } = query;
      const strings = {
        ...rest,
        ...(take === undefined ? {} : { take: String(take) }),
        ...(skip === undefined ? {} : { skip: String(skip) }),
      };
      const pending = api.GET('/registry/experts', { params: { query: strings } });
      await dataWith('GET /registry/experts', pending, 'experts', 'array');
      return (await pending).data!;
    },
    get,
    /** The Expert, or undefined when the registry answers 404. */
    async find(key: string): Promise<RegistryExpert | undefined> {
      try {
        return await get(key);
      } catch (error) {
        if (error instanceof RegistryError && error.status === 404) return undefined;
        throw error;
      }
    },
    async versions(name: string): Promise<ExpertVersions> {
      return dataWith(
        `GET /registry/experts/${encodeURIComponent(name)}/versions`,
        api.GET('/registry/experts/{expertKey}/versions', expertKey(name)),
        'versions',
        'array',
      );
    },
    /**
     * Whether the server accepts the API key, before anything relies on it (reads do not check it), and the
     * id of the organization it acts for. `GET /api/v1/me` answers any live key and 401 to a rejected one;
     * a server without it (403, 404) accepted the key but leaves its organization unknown.
     */
    async checkCredential(): Promise<string | undefined> {
      try {
        const { data } = await api.GET('/api/v1/me');
        const id = (data?.data as { organization?: { id?: unknown } } | undefined)?.organization?.id;
        return typeof id === 'string' ? id : undefined;
      } catch (error) {
        if (error instanceof RegistryError && (error.status === 403 || error.status === 404))
          return undefined;
        throw error;
      }
    },
    async publish(payload: ExpertDefinition): Promise<RegistryExpert> {
      // The compiler checks that a definition is what the route takes.
      const body: RequestBody<'/registry/experts', 'post'> = payload;
      const pending = api.POST('/registry/experts', { body });
      return (await dataWith('POST /registry/experts', pending, 'expert', 'object')).expert;
    },
    async update(key: string, body: { status?: ExpertStatus; tags?: string[] }): Promise<void> {
      // Only the update's status is relied upon (docs/registry.md).
      await api.POST('/registry/experts/{expertKey}', { ...expertKey(key), body });
    },
    /** What changed from `from` to `to`, two keys of one name (GET /registry/diff). */
    async diff(from: string, to: string): Promise<ExpertDiff> {
      const pending = api.GET('/registry/diff', { params: { query: { from, to } } });
      return (await dataWith('GET /registry/diff', pending, 'diff', 'object')).diff;
    },
    /** The versions delegating to `key`'s version, directly and transitively (GET /registry/dependents). */
    async dependents(key: string) {
      const pending = api.GET('/registry/dependents', { params: { query: { key } } });
      await dataWith('GET /registry/dependents', pending, 'dependents', 'array');
      return (await pending).data!;
    },
    async remove(key: string): Promise<void> {
      await api.DELETE('/registry/experts/{expertKey}', expertKey(key));
    },
  };
}

export type RegistryClient = ReturnType<typeof createRegistryClient>;

function errorFrom(status: number, statusText: string, text: string, json: unknown): RegistryError {
  if (json !== null && typeof json === 'object') {
    const body = json as { error?: unknown; reason?: unknown; message?: unknown };
    // Registry shape: { code, error: "Not Found", reason }. Management shape (a proxy or a
    // rate limiter in front may answer with it): { error: { code, message } }.
    if (body.error && typeof body.error === 'object') {
      const inner = body.error as { code?: unknown; message?: unknown };
      const title = typeof inner.code === 'string' ? inner.code : statusText;
      return new RegistryError(status, title, typeof inner.message === 'string' ? inner.message : text);
    }
    const title = typeof body.error === 'string' ? body.error : statusText;
    const reason =
      typeof body.reason === 'string' ? body.reason : typeof body.message === 'string' ? body.message : text;
    return new RegistryError(status, title, reason);
  }
  return new RegistryError(status, statusText, text.slice(0, 200) || '(empty body)');
}
