import { createAdminClient } from './admin-client.js';
import { CliError } from './errors.js';
import type { CliIo } from './io.js';
import { resolveServiceUrl, unreachableHint } from './service-url.js';

/** A client of the management API with the caller's own key (CADRE_API_KEY), for the member commands. */
export function apiKeyClient(io: CliIo, options: { url?: string | undefined }, needs: string) {
  const apiKey = io.env.CADRE_API_KEY;
  if (!apiKey)
    throw new CliError('this command needs an API key', 1, `set CADRE_API_KEY to a key with ${needs}`);
  const { url, source } = resolveServiceUrl(io, { url: options.url });
  return createAdminClient({
    baseUrl: url,
    token: apiKey,
    unreachableHint: unreachableHint(source),
    unauthorizedHint: 'check CADRE_API_KEY: unknown, revoked or expired keys are refused',
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
