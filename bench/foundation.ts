// Issues 2 and 5. Each Cadre route is compared with a bare node:http server returning the same body, loaded
// in alternating rounds with it. Authentication cost: GET /api/v1/billing/plans (Bearer key, no database
// work) against the unauthenticated GET /healthz, target ≥ 0.8; and GET /api/v1/api-keys/{id} (Bearer key
// + one indexed read).
import {
  getJson,
  type LoadResult,
  loadAlternating,
  ratio,
  report,
  type Server,
  startBare,
  startCadre,
} from './lib.js';

const cadre = await startCadre();
const bares: Server[] = [];
const rows: Array<LoadResult & { ratio?: number; target?: string }> = [];

/** The route and a bare server answering its exact body, as a pair of load targets. */
async function withBare(name: string, path: string, headers: Record<string, string> = {}) {
  const body = await (await fetch(cadre.url + path, { headers })).text();
  const bare = await startBare(body);
  bares.push(bare);
  return [
    { name: `bare node:http, same body as ${path}`, url: bare.url },
    { name, url: cadre.url + path, headers },
  ];
}

try {
  const headers = { authorization: `Bearer ${cadre.bootstrap.apiKey}` };
  const list = await getJson<{ apiKeys: Array<{ id: string }> }>(
    `${cadre.url}/api/v1/api-keys?limit=1`,
    headers,
  );
  const [bareHealth, health, barePlans, plans, bareKey, key] = await loadAlternating([
    ...(await withBare('GET /healthz', '/healthz')),
    ...(await withBare('GET /api/v1/billing/plans (Bearer key)', '/api/v1/billing/plans', headers)),
    ...(await withBare(
      'GET /api/v1/api-keys/{id} (Bearer key, one read)',
      `/api/v1/api-keys/${list.apiKeys[0]!.id}`,
      headers,
    )),
  ]);
  const versus = (measured: LoadResult, baseline: LoadResult, target = 'vs bare') => ({
    ...measured,
    ratio: ratio(measured.requestsPerSecond, baseline.requestsPerSecond),
    target,
  });
  rows.push(bareHealth!, versus(health!, bareHealth!), barePlans!, versus(plans!, barePlans!));
  rows.push({
    ...versus(plans!, health!, '≥ 0.8'),
    name: 'authentication cost: plans (Bearer) vs /healthz',
  });
  // Issue 5 asks for the same payload: each route against the bare server answering its own bytes, then
  // one ratio against the other (what authentication, rate limiting and usage counting add).
  const normalized = (result: LoadResult, bare: LoadResult) =>
    result.requestsPerSecond / bare.requestsPerSecond;
  rows.push({
    ...plans!,
    name: 'authentication cost, same payload: (plans ÷ its bare) vs (/healthz ÷ its bare)',
    ratio: Math.round((normalized(plans!, barePlans!) / normalized(health!, bareHealth!)) * 100) / 100,
    target: '≥ 0.8 (adds ≤ 20%)',
  });
  rows.push(bareKey!, versus(key!, bareKey!));
  report(`Foundation (${process.env.DATABASE_URL ? 'PostgreSQL' : 'PGlite'})`, rows);
} finally {
  await Promise.all([cadre.stop(), ...bares.map((bare) => bare.stop())]);
}
