import { type CadreApi, createCadreApi } from './api.js';
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

interface ManagementError {
  error?: { code?: string; message?: string; details?: Array<{ path: string; message: string }> };
}

/**
 * The admin API, or the management API with an API key as `token`: a typed client whose calls answer only
 * bodies carrying `data`; a management error becomes a CliError carrying its code and message.
 */
export function createAdminClient(options: AdminClientOptions): CadreApi {
  return createCadreApi({
    baseUrl: options.baseUrl,
    token: options.token,
    ...(options.timeoutMs === undefined ? {} : { timeoutMs: options.timeoutMs }),
    // An empty answer is a 204 (a delete); dataOf and bodyOf still refuse it where a body is expected. The API
    // key list is the one management answer whose items are not under `data` (its shape is the specification's).
    accepts: (json, text) =>
      text === '' ||
      (json as { data?: unknown } | undefined)?.data !== undefined ||
      Array.isArray((json as { apiKeys?: unknown } | undefined)?.apiKeys),
    unreachable: (base, why) =>
      new CliError(`cannot reach Cadre at ${base} (${why})`, EXIT_SERVER, options.unreachableHint),
    refused: ({ method, path, status, text, json }) => {
      if (json === undefined)
        return new CliError(`Cadre answered ${method} ${path} with ${status} and no JSON`, EXIT_SERVER);
      const error = (json as ManagementError).error;
      const details = error?.details?.map((d) => `${d.path}: ${d.message}`).join('; ');
      return new CliError(
        `${status} ${error?.code ?? 'error'}: ${error?.message ?? text}${details ? ` (${details})` : ''}`,
        status >= 500 || status === 429 ? EXIT_SERVER : EXIT_USER,
        status === 401
          ? (options.unauthorizedHint ??
              'check --token / CADRE_ADMIN_TOKEN (embedded mode: .cadre-data/bootstrap.json)')
          : undefined,
      );
    },
  });
}

/**
 * The `data` of a management answer. The client only lets bodies with `data` through; the check here
 * narrows the type (openapi-fetch types an answer as data or error).
 */
export async function dataOf<T>(pending: Promise<{ data?: { data: T }; response: Response }>): Promise<T> {
  return (await bodyOf(pending)).data;
}

/** The whole body of a management answer (`data` and, for lists, `pagination`). */
export async function bodyOf<B>(pending: Promise<{ data?: B; response: Response }>): Promise<B> {
  const { data, response } = await pending;
  if (data === undefined) throw new CliError(`Cadre answered ${response.status} without a body`, EXIT_SERVER);
  return data;
}
