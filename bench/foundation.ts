// Issues 2 and 5. Each Cadre route is compared with a bare node:http server returning the same body, in the
// same run. Authentication cost: GET /api/v1/billing/plans (Bearer key, no database work) against the
// unauthenticated GET /healthz, target ≥ 0.8; and GET /api/v1/api-keys/{id} (Bearer key + one indexed read).
import { getJson, type LoadResult, load, ratio, report, startBare, startCadre } from './lib.js';

const cadre = await startCadre();
const rows: Array<LoadResult & { ratio?: number; target?: string }> = [];

async function versusBare(name: string, path: string, headers: Record<string, string> = {}) {
  const body = await (await fetch(cadre.url + path, { headers })).text();
  const bare = await startBare(body);
  const baseline = await load(`bare node:http, same body as ${path}`, bare.url);
  await bare.stop();
  const measured = await load(name, cadre.url + path, headers);
  rows.push(baseline, {
    ...measured,
    ratio: ratio(measured.requestsPerSecond, baseline.requestsPerSecond),
    target: 'vs bare',
  });
  return measured;
}

try {
  const headers = { authorization: `Bearer ${cadre.bootstrap.apiKey}` };
  const health = await versusBare('GET /healthz', '/healthz');
  const plans = await versusBare('GET /api/v1/billing/plans (Bearer key)', '/api/v1/billing/plans', headers);
  rows.push({
    ...plans,
    name: 'authentication cost: plans (Bearer) vs /healthz',
    ratio: ratio(plans.requestsPerSecond, health.requestsPerSecond),
    target: '≥ 0.8',
  });
  const list = await getJson<{ apiKeys: Array<{ id: string }> }>(
    `${cadre.url}/api/v1/api-keys?limit=1`,
    headers,
  );
  await versusBare(
    'GET /api/v1/api-keys/{id} (Bearer key, one read)',
    `/api/v1/api-keys/${list.apiKeys[0]!.id}`,
    headers,
  );
  report(`Foundation (${process.env.DATABASE_URL ? 'PostgreSQL' : 'PGlite'})`, rows);
} finally {
  await cadre.stop();
}
