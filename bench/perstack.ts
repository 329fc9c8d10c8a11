/**
 * A warm read through the Perstack-compatible face costs what it costs through /registry (issue 26): both
 * faces answer one Expert from the same per-instance cache (the Perstack face's bytes spell skills out whole). Three targets in alternating rounds, on one
 * Cadre process (embedded PGlite unless DATABASE_URL is set): a bare node:http server answering the
 * registry face's bytes, GET /registry/experts/<key>, GET /api/registry/v1/experts/<encoded key>.
 *
 *   npm run build && npx tsx bench/perstack.ts
 */
import { getJson, loadAlternating, ratio, report, startBare, startCadre } from './lib.js';

const cadre = await startCadre();
const name = `bench-perstack-${Date.now().toString(36)}`;
const key = `${name}@1.0.0`;
try {
  await getJson(
    `${cadre.url}/registry/experts`,
    { authorization: `Bearer ${cadre.bootstrap.apiKey}` },
    {
      method: 'POST',
      body: JSON.stringify({
        name,
        version: '1.0.0',
        minRuntimeVersion: 'v1.0',
        description: 'A warm read, through both registry faces',
        instruction: 'You are a benchmark Expert. '.repeat(40),
        skills: {
          '@perstack/base': { type: 'mcpStdioSkill', command: 'npx', packageName: '@perstack/base' },
        },
      }),
    },
  );
  const registryPath = `/registry/experts/${key}`;
  const perstackPath = `/api/registry/v1/experts/${encodeURIComponent(key)}`;
  const registryBody = await (await fetch(cadre.url + registryPath)).text();
  const perstackBody = await (await fetch(cadre.url + perstackPath)).text();
  // Both answer the same record from the same cache; the Perstack face spells each skill out whole (the
  // fields Perstack's runtime reads, docs/perstack.md), so its answer is a little larger.
  if (!perstackBody.startsWith('{"data":{"expert":'))
    throw new Error(`the Perstack face answered ${perstackBody}`);
  console.log(`answer bytes: /registry ${registryBody.length}, /api/registry/v1 ${perstackBody.length}`);
  const bare = await startBare(registryBody);
  try {
    const [baseline, registry, perstack] = await loadAlternating([
      { name: 'bare node:http, the same body', url: bare.url },
      { name: `GET ${registryPath}, warm cache`, url: cadre.url + registryPath },
      { name: `GET /api/registry/v1/experts/<encoded key>, warm cache`, url: cadre.url + perstackPath },
    ]);
    report(`Warm reads through both registry faces (${process.env.DATABASE_URL ? 'PostgreSQL' : 'PGlite'})`, [
      baseline!,
      {
        ...registry!,
        ratio: ratio(registry!.requestsPerSecond, baseline!.requestsPerSecond),
        target: '≥ 0.6',
      },
      {
        ...perstack!,
        ratio: ratio(perstack!.requestsPerSecond, baseline!.requestsPerSecond),
        target: `≥ 0.9 of /registry's: ${ratio(perstack!.requestsPerSecond, registry!.requestsPerSecond)}`,
      },
    ]);
  } finally {
    await bare.stop();
  }
} finally {
  await cadre.stop();
}
