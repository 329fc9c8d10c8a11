import { http } from './http.js';

export const ADMIN = 'resilience-admin-token-0123456789abcdefghijklmnop';

/** Creates an organization through the admin API of `url`; its owner's `*` key. */
export async function ownerKeyOf(url: string, slug: string): Promise<{ id: string; key: string }> {
  const res = await http<{ data: { organization: { id: string }; apiKey: { key: string } } }>(
    url,
    'POST',
    '/admin/v1/organizations',
    { key: ADMIN, body: { slug, name: slug, accountType: 'team', owner: { email: `o@${slug}.test` } } },
  );
  if (res.status !== 201) throw new Error(`organization: ${res.status} ${res.text}`);
  // Load tests write far more than a plan allows: an operator's limits, as fixtures.ts sets them.
  const limits = await http(url, 'PUT', `/admin/v1/organizations/${slug}/limits`, {
    key: ADMIN,
    body: { apiRequests: 1e9, expertVersions: 1e6, apiKeys: 1e6, connections: 1e6 },
  });
  if (limits.status !== 200) throw new Error(`organization limits: ${limits.status} ${limits.text}`);
  return { id: res.body.data.organization.id, key: res.body.data.apiKey.key };
}

export const createKeyBody = (name: string) => ({
  name,
  grants: { type: 'organization', permissions: ['api-keys:read'] },
});

/** What a load run saw: answers per status, and the writes the server acknowledged. */
export interface LoadRecord {
  statuses: Map<number, number>;
  /** 503s without Retry-After (must stay 0). */
  missingRetryAfter: number;
  networkErrors: number;
  acknowledged: Map<string, string>;
}

export const newRecord = (): LoadRecord => ({
  statuses: new Map(),
  missingRetryAfter: 0,
  networkErrors: 0,
  acknowledged: new Map(),
});

/**
 * `workers` loops, each alternating a key creation and a list, until `stop()` (bounded by `maxMs`). Keeps
 * what was answered, so the test can check every acknowledged write afterwards.
 */
export function runLoad(url: string, key: string, record: LoadRecord, { workers = 6, maxMs = 60_000 } = {}) {
  let stopped = false;
  const deadline = Date.now() + maxMs;
  let n = 0;
  const worker = async () => {
    while (!stopped && Date.now() < deadline) {
      const write = n % 2 === 0;
      const name = `load-${n++}`;
      try {
        const res = write
          ? await http<{ data: { id: string; key: string } }>(url, 'POST', '/api/v1/api-keys', {
              key,
              body: createKeyBody(name),
            })
          : await http(url, 'GET', '/api/v1/api-keys?limit=5', { key });
        record.statuses.set(res.status, (record.statuses.get(res.status) ?? 0) + 1);
        if (res.status === 503 && !res.headers.get('retry-after')) record.missingRetryAfter++;
        if (write && res.status === 200) {
          const data = (res.body as { data: { id: string; key: string } }).data;
          record.acknowledged.set(data.id, data.key);
        }
      } catch {
        record.networkErrors++;
      }
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
  };
  const running = Promise.all(Array.from({ length: workers }, worker));
  return {
    stop: async () => {
      stopped = true;
      await running;
    },
  };
}
