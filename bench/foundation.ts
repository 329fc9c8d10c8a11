// Issue 2 and 5 targets: GET /healthz against bare node:http returning the same body, and an authenticated
// GET /api/v1/api-keys/{id} against bare node:http returning that same record; API-key authentication may
// cost at most 20% of an unauthenticated route's throughput.
import { getJson, load, ratio, report, startBare, startCadre } from './lib.js';

const cadre = await startCadre();
try {
  const headers = { authorization: `Bearer ${cadre.bootstrap.apiKey}` };
  const list = await getJson<{ apiKeys: Array<{ id: string }> }>(
    `${cadre.url}/api/v1/api-keys?limit=1`,
    headers,
  );
  const keyPath = `/api/v1/api-keys/${list.apiKeys[0]!.id}`;
  const keyBody = await (await fetch(cadre.url + keyPath, { headers })).text();

  const bareHealth = await startBare('{"status":"ok"}');
  const bareHealthResult = await load('bare node:http, {"status":"ok"}', bareHealth.url);
  await bareHealth.stop();
  const health = await load('GET /healthz', `${cadre.url}/healthz`);

  const bareKey = await startBare(keyBody);
  const bareKeyResult = await load('bare node:http, the API key record', bareKey.url);
  await bareKey.stop();
  const authed = await load('GET /api/v1/api-keys/{id} (Bearer key)', cadre.url + keyPath, headers);

  report('Foundation', [
    bareHealthResult,
    {
      ...health,
      ratio: ratio(health.requestsPerSecond, bareHealthResult.requestsPerSecond),
      target: 'vs bare',
    },
    bareKeyResult,
    { ...authed, ratio: ratio(authed.requestsPerSecond, bareKeyResult.requestsPerSecond), target: 'vs bare' },
    {
      ...authed,
      name: 'authenticated GET vs GET /healthz',
      ratio: ratio(authed.requestsPerSecond, health.requestsPerSecond),
      target: '≥ 0.8',
    },
  ]);
} finally {
  await cadre.stop();
}
