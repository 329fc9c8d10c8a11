import createClient, { type Middleware } from 'openapi-fetch';
import type { paths } from './schema.js';

/**
 * The console's one way to the API: typed from the service's own OpenAPI document (schema.d.ts is generated
 * from it), same origin, the session cookie sent by the browser. The session's CSRF token lives in memory
 * only (never in storage); mutating requests carry it.
 */
let csrfToken: string | undefined;

export function setCsrfToken(token: string | undefined): void {
  csrfToken = token;
}

const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

const csrf: Middleware = {
  onRequest({ request }) {
    if (csrfToken && !SAFE_METHODS.has(request.method)) request.headers.set('x-csrf-token', csrfToken);
    return request;
  },
};

export const api = createClient<paths>({ baseUrl: window.location.origin, credentials: 'same-origin' });
api.use(csrf);

/** Any failed API answer, in words: both error shapes (registry and management) read the same here. */
export class ApiProblem extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly requestId: string | undefined,
    readonly details: ReadonlyArray<{ path: string; message: string }> = [],
  ) {
    super(message);
  }
}

type ErrorBody =
  | {
      error?: {
        code?: string;
        message?: string;
        requestId?: string;
        details?: { path: string; message: string }[];
      };
    }
  | { code?: number; error?: string; reason?: string };

export function toProblem(response: Response, body: unknown): ApiProblem {
  const requestId = response.headers.get('x-request-id') ?? undefined;
  const parsed = (body ?? {}) as ErrorBody;
  if (parsed.error && typeof parsed.error === 'object') {
    const { code, message, details } = parsed.error;
    return new ApiProblem(
      response.status,
      code ?? 'error',
      message ?? response.statusText,
      parsed.error.requestId ?? requestId,
      details ?? [],
    );
  }
  const registry = parsed as { error?: string; reason?: string };
  return new ApiProblem(
    response.status,
    registry.error ?? String(response.status),
    registry.reason ?? registry.error ?? response.statusText,
    requestId,
  );
}

/** The data of an openapi-fetch result, or an ApiProblem thrown (so TanStack Query sees a failure). */
export function unwrap<T>(result: { data?: T; error?: unknown; response: Response }): T {
  if (result.response.ok && result.data !== undefined) return result.data;
  if (result.response.ok) return undefined as T;
  throw toProblem(result.response, result.error);
}

/** The session's CSRF token, for the bodies that carry it (billing checkout and portal). */
export const currentCsrfToken = () => csrfToken;
