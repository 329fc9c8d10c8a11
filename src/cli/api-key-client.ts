import { createAdminClient } from './admin-client.js';
import { storedLogin } from './credentials.js';
import { CliError } from './errors.js';
import type { CliIo } from './io.js';
import { resolveServiceUrl, unreachableHint } from './service-url.js';

/** The caller's key: CADRE_API_KEY when set (it always wins), else the one `cadre login` stored for this URL. */
export function callerKey(
  io: CliIo,
  url: string,
): { key: string; from: 'CADRE_API_KEY' | 'cadre login' } | undefined {
  if (io.env.CADRE_API_KEY) return { key: io.env.CADRE_API_KEY, from: 'CADRE_API_KEY' };
  const stored = storedLogin(io, url);
  return stored && { key: stored.key, from: 'cadre login' };
}

/** A client of the management API with the caller's own key, for the member commands. */
export function apiKeyClient(io: CliIo, options: { url?: string | undefined }, needs: string) {
  const { url, source } = resolveServiceUrl(io, { url: options.url });
  const caller = callerKey(io, url);
  if (!caller) {
    throw new CliError(
      'this command needs an API key',
      1,
      `run cadre login (or set CADRE_API_KEY to a key with ${needs})`,
    );
  }
  return createAdminClient({
    baseUrl: url,
    token: caller.key,
    unreachableHint: unreachableHint(source),
    unauthorizedHint:
      caller.from === 'CADRE_API_KEY'
        ? 'check CADRE_API_KEY: unknown, revoked or expired keys are refused (cadre login makes a new one)'
        : `the key cadre login stored for ${url} was refused (revoked or expired): run cadre login again`,
  });
}

/** Follows cursor pages of a list endpoint (`page` reads one) until it ends or `limit` items are read. */
export async function readPages<T>(
  page: (query: {
    limit: number;
    cursor?: string;
  }) => Promise<{ data: T[]; pagination?: { nextCursor: string | null } }>,
  limit: number,
): Promise<{ items: T[]; more: boolean }> {
  const items: T[] = [];
  let cursor: string | null | undefined;
  do {
    const answer = await page({ limit: Math.min(100, limit - items.length), ...(cursor ? { cursor } : {}) });
    items.push(...answer.data);
    cursor = answer.pagination?.nextCursor;
  } while (cursor && items.length < limit);
  return { items, more: Boolean(cursor) };
}
