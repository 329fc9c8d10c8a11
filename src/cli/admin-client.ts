import { CliError, EXIT_SERVER, EXIT_USER } from './errors.js';

export interface AdminClientOptions {
  baseUrl: string;
  token: string;
  timeoutMs?: number;
  /** What to check when nothing answers (which setting gave the URL). */
  unreachableHint?: string;
  /** What to check on a 401 (default: the admin token). */
  unauthorizedHint?: string;
}

/**
 * Calls the admin API, or the management API with an API key as `token`; a management error becomes a
 * CliError carrying its code and message. `call` answers `data`; `page` the whole body (with `pagination`).
 */
export function createAdminClient(options: AdminClientOptions) {
  const base = options.baseUrl.replace(/\/+$/, '');
  const client = {
    async call<T = Record<string, unknown>>(
      method: string,
      path: string,
      body?: unknown,
      timeoutMs = options.timeoutMs ?? 30_000,
    ): Promise<T> {
      return (await client.page<T>(method, path, body, timeoutMs)).data;
    },

    async page<T = Record<string, unknown>>(
      method: string,
      path: string,
      body?: unknown,
      timeoutMs = options.timeoutMs ?? 30_000,
    ): Promise<{ data: T; pagination?: { nextCursor: string | null } }> {
      let response: Response;
      try {
        response = await fetch(base + path, {
          method,
          headers: {
            authorization: `Bearer ${options.token}`,
            accept: 'application/json',
            ...(body === undefined ? {} : { 'content-type': 'application/json' }),
          },
          body: body === undefined ? undefined : JSON.stringify(body),
          signal: AbortSignal.timeout(timeoutMs),
        });
      } catch (error) {
        const cause = (error as { cause?: { code?: string } }).cause?.code ?? (error as Error).message;
        throw new CliError(`cannot reach Cadre at ${base} (${cause})`, EXIT_SERVER, options.unreachableHint);
      }
      const text = await response.text();
      let json: {
        data?: T;
        pagination?: { nextCursor: string | null };
        error?: { code: string; message: string; details?: Array<{ path: string; message: string }> };
      };
      try {
        json = JSON.parse(text);
      } catch {
        throw new CliError(
          `Cadre answered ${method} ${path} with ${response.status} and no JSON`,
          EXIT_SERVER,
        );
      }
      if (!response.ok || !json.data) {
        const error = json.error;
        const details = error?.details?.map((d) => `${d.path}: ${d.message}`).join('; ');
        throw new CliError(
          `${response.status} ${error?.code ?? 'error'}: ${error?.message ?? text}${details ? ` (${details})` : ''}`,
          response.status >= 500 || response.status === 429 ? EXIT_SERVER : EXIT_USER,
          response.status === 401
            ? (options.unauthorizedHint ??
                'check --token / CADRE_ADMIN_TOKEN (embedded mode: .cadre-data/bootstrap.json)')
            : undefined,
        );
      }
      return json as { data: T; pagination?: { nextCursor: string | null } };
    },
  };
  return client;
}
