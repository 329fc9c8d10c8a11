/**
 * What metrics cost on the hot path: the warm registry read (`GET /registry/experts/name@version`, a cache
 * hit) on two Cadre processes, metrics on and off (CADRE_METRICS=off), loaded in alternating rounds with a
 * bare node:http server answering the same bytes. Target: metrics on ≥ 0.95 × metrics off.
 *
 *   npm run bench:metrics            (PGlite; DATABASE_URL=… for a server database)
 */
import { getJson, loadAlternating, ratio, report, type Server, startBare, startCadre } from './lib.js';

const servers: Server[] = [];
try {
  const on = await startCadre({});
  servers.push(on);
  const off = await startCadre({ CADRE_METRICS: 'off' });
  servers.push(off);
  const name = `metrics-bench-${Date.now().toString(36)}`;
  // A server database is shared by both processes: publish once.
  for (const server of process.env.DATABASE_URL ? [on] : [on, off]) {
    await getJson(
      `${server.url}/registry/experts`,
      { authorization: `Bearer ${server.bootstrap.apiKey}`, 'content-type': 'application/json' },
      {
        method: 'POST',
        body: JSON.stringify({
          name,
          version: '1.0.0',
          minRuntimeVersion: '0.1.0',
          description: 'An Expert read by the metrics benchmark',
          instruction: 'You answer benchmark reads.',
          skills: { '@service/base': { type: 'mcpStdioSkill', command: 'npx', packageName: '@cadre/base' } },
        }),
      },
    );
  }
  const path = `/registry/experts/${name}@1.0.0`;
  const bare = await startBare(await (await fetch(on.url + path)).text());
  servers.push(bare);
  const [baseline, withMetrics, withoutMetrics] = await loadAlternating([
    { name: `bare node:http, same body as ${path}`, url: bare.url },
    { name: 'metrics on (default)', url: on.url + path },
    { name: 'metrics off (CADRE_METRICS=off)', url: off.url + path },
  ]);
  report(`Warm registry read, metrics on vs off (${process.env.DATABASE_URL ? 'PostgreSQL' : 'PGlite'})`, [
    baseline!,
    {
      ...withoutMetrics!,
      ratio: ratio(withoutMetrics!.requestsPerSecond, baseline!.requestsPerSecond),
      target: 'vs bare',
    },
    {
      ...withMetrics!,
      ratio: ratio(withMetrics!.requestsPerSecond, baseline!.requestsPerSecond),
      target: 'vs bare',
    },
    {
      ...withMetrics!,
      name: 'metrics on / metrics off',
      ratio: ratio(withMetrics!.requestsPerSecond, withoutMetrics!.requestsPerSecond),
      target: '≥ 0.95',
    },
  ]);
} finally {
  await Promise.all(servers.map((server) => server.stop()));
}
