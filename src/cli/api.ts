import createClient, { type Client } from 'openapi-fetch';
import type { paths } from '../api-schema.js';
import { foreignJson, wrongServer } from './wrong-server.js';

/** The service's API, typed from its own OpenAPI document (api-schema.d.ts, `npm run console:api-types`). */
export type CadreApi = Client<paths>;

/** The JSON body a route takes, e.g. `RequestBody<'/admin/v1/organizations', 'post'>`. */
export type RequestBody<P extends keyof paths, M extends 'post' | 'put'> = paths[P][M] extends {
  requestBody?: { content: { 'application/json': infer B } };
}
  ? B
  : never;

/** An answer the CLI will not use: not a 2xx (a 2xx that `accepts` refuses is not Cadre's: wrong-server.ts). */
interface Refusal {
  method: string;
  path: string;
  status: number;
  statusText: string;
  text: string;
  /** The body parsed, or undefined when it is empty or not JSON. */
  json: unknown;
}

export interface CadreApiOptions {
  baseUrl: string;
  token?: string | undefined;
  timeoutMs?: number;
  /** The error for nothing answering; `why` is the system's reason, e.g. ECONNREFUSED. */
  unreachable: (base: string, why: string) => Error;
  /** The error for an answer refused (see Refusal). */
  refused: (refusal: Refusal) => Error;
  /** Whether a 2xx body is usable (default: empty or JSON). */
  accepts?: (json: unknown, text: string) => boolean;
}

/**
 * openapi-fetch over the service with the CLI's transport: the bearer token, a timeout per request, and
 * every failure turned into the caller's error here, where the method and path are known; so a call that
 * returns has a usable 2xx body, typed by its route.
 */
export function createCadreApi(options: CadreApiOptions): CadreApi {
  const base = options.baseUrl.replace(/\/+$/, '');
  const accepts = options.accepts ?? ((json, text) => text === '' || json !== undefined);
  return createClient<paths>({
    baseUrl: base,
    headers: {
      accept: 'application/json',
      ...(options.token ? { authorization: `Bearer ${options.token}` } : {}),
    },
    fetch: async (request) => {
      let response: Response;
      try {
        response = await fetch(request, { signal: AbortSignal.timeout(options.timeoutMs ?? 30_000) });
      } catch (error) {
        const cause = (error as { cause?: { code?: string; message?: string } }).cause;
        throw options.unreachable(base, cause?.code ?? cause?.message ?? (error as Error).message);
      }
      const text = await response.text();
      let json: unknown;
      try {
        json = text === '' ? undefined : JSON.parse(text);
      } catch {
        json = undefined;
      }
      const path = request.url.slice(base.length);
      // Not Cadre at all (a web page, another API), or Cadre through a wrong base URL: one line saying so.
      const wrong = wrongServer({
        base,
        method: request.method,
        path,
        status: response.status,
        contentType: response.headers.get('content-type') ?? '',
        text,
        json,
      });
      if (wrong) throw wrong;
      if (response.ok && !accepts(json, text))
        throw foreignJson(base, `${request.method} ${path.split('?')[0]}`, json !== undefined);
      if (!response.ok) {
        throw options.refused({
          method: request.method,
          path,
          status: response.status,
          statusText: response.statusText,
          text,
          json,
        });
      }
      // The body as read (decoded): openapi-fetch takes a zero length for "no body".
      const headers = new Headers(response.headers);
      headers.delete('content-encoding');
      headers.delete('transfer-encoding');
      headers.set('content-length', String(Buffer.byteLength(text)));
      const { status, statusText } = response;
      return new Response(text === '' ? null : text, { status, statusText, headers });
    },
  });
}
