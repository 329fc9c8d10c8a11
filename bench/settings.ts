/**
 * What a route pays for each setting: one Cadre process per configuration, the same route loaded on each in
 * alternating rounds (and a bare node:http server answering the same bytes).
 *
 *   npm run build && DATABASE_URL=…/cadre_bench npx tsx bench/settings.ts
 *   BENCH_PATH=/healthz BENCH_SETTINGS='[{},{"CADRE_LOG_REQUESTS":"false"}]' npx tsx bench/settings.ts
 */
import { loadAlternating, ratio, report, type Server, startBare, startCadre } from './lib.js';

const path = process.env.BENCH_PATH ?? '/registry/experts/bench-expert-04242@3.0.0';
const settings: Array<Record<string, string>> = JSON.parse(
  process.env.BENCH_SETTINGS ??
    '[{}, {"CADRE_LOG_REQUESTS":"false"}, {"CADRE_RATE_LIMITS":"off"}, {"CADRE_LOG_REQUESTS":"false","CADRE_RATE_LIMITS":"off"}]',
);
const servers: Server[] = [];
try {
  for (const env of settings) servers.push(await startCadre(env));
  const bare = await startBare(await (await fetch(servers[0]!.url + path)).text());
  servers.push(bare);
  const [baseline, ...measured] = await loadAlternating([
    { name: `bare node:http, same body as ${path}`, url: bare.url },
    ...settings.map((env, index) => ({
      name: Object.keys(env).length
        ? Object.entries(env)
            .map(([k, v]) => `${k}=${v}`)
            .join(' ')
        : 'defaults',
      url: servers[index]!.url + path,
    })),
  ]);
  report(`GET ${path} by setting (${process.env.DATABASE_URL ? 'PostgreSQL' : 'PGlite'})`, [
    baseline!,
    ...measured.map((result) => ({
      ...result,
      ratio: ratio(result.requestsPerSecond, baseline!.requestsPerSecond),
      target: 'vs bare',
    })),
  ]);
} finally {
  await Promise.all(servers.map((server) => server.stop()));
}
