// Issue 32. Where a database-bound GET's CPU goes, by process: Cadre's Node process, every PostgreSQL
// process of the server (backends included), and the load generator (this process), in CPU microseconds per
// answered request, Cadre against the Fastify + pg anchor (bench/anchor-server.mjs) on the same data. It
// shows which process bounds the throughput: Node runs one thread, so at N requests per second a process
// spending more than 1/N s of CPU per request cannot keep up, whatever PostgreSQL does.
//
//   npm run build
//   DATABASE_URL=postgres://…/empty_database npx tsx bench/cpu-per-request.ts          # the audit page
//   BENCH_ROUTE=events DATABASE_URL=… npx tsx bench/cpu-per-request.ts                 # the events page
//   BENCH_CADRE_NODE_ARGS="--cpu-prof --cpu-prof-dir=/tmp/prof" …                        # and profile Cadre
//
// Linux only (reads /proc). Cadre is seeded by one process and measured in another, so a profile holds the
// load only.
import { readdirSync, readFileSync } from 'node:fs';
import autocannon from 'autocannon';
import { CONNECTIONS, seedReadTenants, startCadre, startProcess } from './lib.js';

const ORGANIZATIONS = 25;
const SECONDS = Number(process.env.BENCH_DURATION ?? 5);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const ROUTE = process.env.BENCH_ROUTE === 'events' ? 'events' : 'audit';
if (!process.env.DATABASE_URL) throw new Error('DATABASE_URL: an empty PostgreSQL database (see the header)');

/** User and system CPU of a process so far, in clock ticks (1/100 s on Linux). */
function ticksOf(pid: number | string): number {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
    return Number(fields[11]) + Number(fields[12]);
  } catch {
    return 0; // gone meanwhile (a backend that closed)
  }
}

function postgresTicks(): number {
  let ticks = 0;
  for (const pid of readdirSync('/proc')) {
    if (!/^\d+$/.test(pid)) continue;
    try {
      if (readFileSync(`/proc/${pid}/comm`, 'utf8').startsWith('postgres')) ticks += ticksOf(pid);
    } catch {
      // not ours to read, or gone
    }
  }
  return ticks;
}

const seeder = await startCadre();
const tenants = await seedReadTenants(seeder, ORGANIZATIONS);
await seeder.stop();
if (process.env.BENCH_CADRE_NODE_ARGS) process.env.BENCH_NODE_ARGS = process.env.BENCH_CADRE_NODE_ARGS;
const cadre = await startCadre();
delete process.env.BENCH_NODE_ARGS;
const anchor = await startProcess(['bench/anchor-server.mjs'], { DATABASE_URL: process.env.DATABASE_URL });

const targets = [
  {
    name: 'Fastify + pg',
    server: anchor,
    requests: tenants.map((t) => ({ method: 'GET' as const, path: `/${ROUTE}?org=${t.id}` })),
  },
  {
    name: 'Cadre',
    server: cadre,
    requests: tenants.map((t) => ({
      method: 'GET' as const,
      path: ROUTE === 'audit' ? `/api/v1/organizations/${t.slug}/audit-events` : '/api/v1/events',
      headers: { authorization: t.authorization },
    })),
  },
];

console.log(`\n### CPU per request, ${ROUTE} page (${SECONDS} s, ${CONNECTIONS} connections)\n`);
console.log('| server | requests/s | Node µs | PostgreSQL µs | load generator µs |');
console.log('|---|---|---|---|---|');
try {
  for (let round = 0; round < ROUNDS; round++) {
    for (const { name, server, requests } of targets) {
      const options = { url: server.url, connections: CONNECTIONS, requests };
      await autocannon({ ...options, duration: 1 });
      const node = ticksOf(server.child.pid!);
      const postgres = postgresTicks();
      const self = process.cpuUsage();
      const result = await autocannon({ ...options, duration: SECONDS });
      if (result.non2xx > 0 || result.errors > 0)
        throw new Error(`${name}: ${result.non2xx} non-2xx answers`);
      const total = result.requests.total;
      const perRequest = (ticks: number) => Math.round((ticks * 10_000) / total); // 1 tick = 10,000 µs
      const generator = process.cpuUsage(self);
      console.log(
        `| ${name} | ${Math.round(result.requests.average)} | ${perRequest(ticksOf(server.child.pid!) - node)} | ${perRequest(postgresTicks() - postgres)} | ${Math.round((generator.user + generator.system) / total)} |`,
      );
    }
  }
} finally {
  await Promise.all([cadre.stop(), anchor.stop()]);
}
