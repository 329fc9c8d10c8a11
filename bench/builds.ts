/**
 * Two builds of Cadre on the routes a changed piece sits on, loaded in alternating rounds: the build under
 * test (`dist/`) against a baseline build (BENCH_BASE_MAIN, e.g. the previous commit compiled with
 * `tsc -p tsconfig.build.json --outDir dist-old`, beside `dist/` so its relative paths hold).
 *
 *   npm run build && BENCH_BASE_MAIN=dist-old/main.js npx tsx bench/builds.ts
 *
 * Scenarios: a warm registry read (read cache and API-key cache hits: a Bearer key is sent), the plans with
 * a Bearer key (API-key cache hit), and uncached reads (CADRE_REGISTRY_CACHE_ENTRIES=0) of a random one of
 * 20 versions (the batched database reads). Ratio = this build ÷ baseline.
 */
import { getJson, type LoadResult, loadAlternating, ratio, report, type Server, startCadre } from './lib.js';

const baseMain = process.env.BENCH_BASE_MAIN;
if (!baseMain) throw new Error('BENCH_BASE_MAIN must name the baseline build, e.g. dist-old/main.js');
const VERSIONS = 20;

type Cadre = Awaited<ReturnType<typeof startCadre>>;
const servers: Server[] = [];
const start = async (env: Record<string, string>, main?: string) => {
  const server = await startCadre(env, main);
  servers.push(server);
  return server;
};

async function publishVersions(server: Cadre, name: string) {
  for (let minor = 0; minor < VERSIONS; minor++) {
    await getJson(
      `${server.url}/registry/experts`,
      { authorization: `Bearer ${server.bootstrap.apiKey}` },
      {
        method: 'POST',
        body: JSON.stringify({
          name,
          version: `1.${minor}.0`,
          minRuntimeVersion: '0.1.0',
          description: 'An Expert read by the builds benchmark',
          instruction: 'You answer benchmark reads.',
          skills: { '@service/base': { type: 'mcpStdioSkill', command: 'npx', packageName: '@cadre/base' } },
        }),
      },
    );
  }
}

try {
  const stamp = Date.now().toString(36);
  const rows: Array<LoadResult & { ratio?: number; target?: string }> = [];
  const pair = async (
    label: string,
    env: Record<string, string>,
    path: (name: string) => string,
    bearer: boolean,
  ) => {
    const base = await start(env, baseMain);
    const head = await start(env);
    const target = async (server: Cadre, build: string) => {
      // A name per server: a server database (DATABASE_URL) is shared by every process.
      const name = `builds-bench-${stamp}-${servers.indexOf(server)}`;
      await publishVersions(server, name);
      return {
        name: `${label}, ${build}`,
        url: server.url + path(name),
        headers: bearer
          ? { authorization: `Bearer ${server.bootstrap.apiKey}` }
          : ({} as Record<string, string>),
        extra: {
          requests: [
            { method: 'GET' as const, setupRequest: (request: object) => ({ ...request, path: path(name) }) },
          ],
        },
      };
    };
    const [baseline, measured] = await loadAlternating([
      await target(base, baseMain),
      await target(head, 'dist'),
    ]);
    rows.push(baseline!, {
      ...measured!,
      ratio: ratio(measured!.requestsPerSecond, baseline!.requestsPerSecond),
      target: 'vs baseline',
    });
  };
  await pair(
    'GET name@version, warm caches, Bearer key',
    {},
    (name) => `/registry/experts/${name}@1.0.0`,
    true,
  );
  await pair('GET /api/v1/billing/plans, Bearer key', {}, () => '/api/v1/billing/plans', true);
  await pair(
    `GET name@version, cache disabled, a random one of ${VERSIONS}`,
    { CADRE_REGISTRY_CACHE_ENTRIES: '0' },
    (name) => `/registry/experts/${name}@1.${Math.floor(Math.random() * VERSIONS)}.0`,
    false,
  );
  report(`This build vs ${baseMain} (${process.env.DATABASE_URL ? 'PostgreSQL' : 'PGlite'})`, rows);
} finally {
  await Promise.all(servers.map((server) => server.stop()));
}
