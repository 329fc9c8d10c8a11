import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { closeSync, existsSync, mkdtempSync, openSync, readFileSync, rmSync } from 'node:fs';
import { type AddressInfo, createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import autocannon from 'autocannon';

const ROOT = fileURLToPath(new URL('../', import.meta.url));
export const DURATION_S = Number(process.env.BENCH_DURATION ?? 10);
export const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 50);
export const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 5);

export interface Server {
  url: string;
  child: ChildProcess;
  stop(): Promise<void>;
}

/**
 * Where Cadre's stdout (its JSON logs, a line per request) goes: `null` (default) or `file`. The lines are
 * produced and written either way; with `file` this VM's disk (writeback of ~9 MB/s on the same two cores)
 * is measured too, costing the cached reads ~7–15% here, more than the service's own logging work.
 */
export const CADRE_LOG = process.env.BENCH_CADRE_LOG === 'file' ? 'file' : 'null';

/**
 * Starts a server process whose output goes to a file (or nowhere), not to this process: reading a log line
 * per request here would steal CPU from autocannon and distort every figure. The server prints its
 * address (`"address":"http://…"`) on start, or is given a port and polled on /healthz when its output is
 * discarded.
 */
export async function startProcess(
  args: string[],
  env: Record<string, string>,
  { discardOutput = false } = {},
): Promise<Server> {
  const logDir = mkdtempSync(join(tmpdir(), 'cadre-bench-log-'));
  const logPath = join(logDir, 'out.log');
  const port = discardOutput ? await freePort() : 0;
  const out = discardOutput ? 'ignore' : openSync(logPath, 'w');
  const child = spawn(process.execPath, args, {
    cwd: ROOT,
    env: { PATH: process.env.PATH ?? '', ...env, ...(discardOutput ? { PORT: String(port) } : {}) },
    stdio: ['ignore', out, 'inherit'],
  });
  if (typeof out === 'number') closeSync(out);
  const url = await new Promise<string>((resolve, reject) => {
    const started = Date.now();
    const timer = setInterval(async () => {
      const found = discardOutput ? await answersHealth(port) : addressIn(logPath);
      if (found) {
        clearInterval(timer);
        resolve(found);
      } else if (child.exitCode !== null || Date.now() - started > 60_000) {
        clearInterval(timer);
        const output = discardOutput
          ? '(output discarded: run it by hand to see why)'
          : readFileSync(logPath, 'utf8');
        reject(new Error(`${args.join(' ')} did not start: ${output}`));
      }
    }, 100);
  });
  return {
    url,
    child,
    stop: async () => {
      if (child.exitCode === null) {
        child.kill('SIGTERM');
        await once(child, 'exit');
      }
      rmSync(logDir, { recursive: true, force: true });
    },
  };
}

const addressIn = (logPath: string) =>
  /"address":"(http:\/\/127\.0\.0\.1:\d+)"/.exec(readFileSync(logPath, 'utf8'))?.[1];

async function answersHealth(port: number): Promise<string | undefined> {
  const url = `http://127.0.0.1:${port}`;
  try {
    return (await fetch(`${url}/healthz`)).ok ? url : undefined;
  } catch {
    return undefined;
  }
}

async function freePort(): Promise<number> {
  const server = createServer();
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;
  server.close();
  await once(server, 'close');
  return port;
}

/** A bare node:http server that answers `body` to everything: the baseline of every ratio. */
export const startBare = (body: string) => startProcess(['bench/bare-server.mjs'], { BODY: body });

export const BENCH_ADMIN_TOKEN = 'b'.repeat(40);

/**
 * The built service (`npm run build` first), embedded PGlite unless DATABASE_URL is set. `main` names
 * another build's entry point, to compare two builds in one run.
 */
export async function startCadre(env: Record<string, string> = {}, main = 'dist/main.js') {
  // A data directory given in `env` (a restart on the same embedded database) is the caller's to remove.
  const dataDir = env.CADRE_DATA_DIR ?? mkdtempSync(join(tmpdir(), 'cadre-bench-'));
  // BENCH_NODE_ARGS adds flags to the service's node (e.g. `--cpu-prof --cpu-prof-dir=/tmp/prof` to profile).
  const nodeArgs = process.env.BENCH_NODE_ARGS?.split(' ').filter(Boolean) ?? [];
  const server = await startProcess(
    [...nodeArgs, main],
    {
      HOST: '127.0.0.1',
      PORT: '0',
      CADRE_LOG_LEVEL: 'info',
      CADRE_DATA_DIR: dataDir,
      // Limits stay on (their cost is part of every request) but far above what the load generator sends.
      CADRE_RATE_LIMIT_READ: '1000000000',
      CADRE_RATE_LIMIT_WRITE: '1000000000',
      CADRE_RATE_LIMIT_ANONYMOUS_READ: '1000000000',
      CADRE_RATE_LIMIT_ANONYMOUS_WRITE: '1000000000',
      // In-flight limits too: one key's 50 connections would otherwise queue 18 requests behind its 32 slots, and
      // a route would be measured waiting its turn (a promise and a timer per queued request) rather than working.
      CADRE_CONCURRENCY_PER_CREDENTIAL: '1000000',
      CADRE_CONCURRENCY_PER_ORGANIZATION: '1000000',
      // A saturated loopback benchmark lags the event loop; measure throughput, not load shedding.
      CADRE_OVERLOAD_EVENT_LOOP_DELAY_MS: '60000',
      ...(process.env.DATABASE_URL
        ? { DATABASE_URL: process.env.DATABASE_URL, CADRE_ADMIN_TOKEN: 'b'.repeat(40) }
        : {}),
      ...env,
    },
    { discardOutput: CADRE_LOG === 'null' },
  );
  // The data directory holds the embedded database: gone with the process.
  const stop = async () => {
    await server.stop();
    if (!env.CADRE_DATA_DIR) rmSync(dataDir, { recursive: true, force: true });
  };
  if (!process.env.DATABASE_URL) {
    const bootstrap = JSON.parse(readFileSync(join(dataDir, 'bootstrap.json'), 'utf8')) as {
      adminToken: string;
      apiKey: string;
    };
    await liftPlanLimits(server.url, bootstrap.adminToken, 'demo');
    return { ...server, stop, bootstrap };
  }
  // A server database has no bootstrap file: make an organization (and its owner key) through the admin API.
  const slug = `bench-${Date.now().toString(36)}-${Math.random().toString(36).slice(2, 6)}`;
  const apiKey = await createBenchOrganization(server.url, BENCH_ADMIN_TOKEN, slug);
  const bootstrap = { adminToken: BENCH_ADMIN_TOKEN, apiKey };
  return { ...server, stop, bootstrap };
}

/** A personal organization made through the admin API, its plan limits lifted: its owner's API key. */
export async function createBenchOrganization(
  url: string,
  adminToken: string,
  slug: string,
): Promise<string> {
  const created = await getJson<{ data: { apiKey: { key: string } } }>(
    `${url}/admin/v1/organizations`,
    { authorization: `Bearer ${adminToken}` },
    {
      method: 'POST',
      body: JSON.stringify({
        slug,
        name: slug,
        accountType: 'personal',
        owner: { email: `${slug}@bench.test` },
      }),
    },
  );
  await liftPlanLimits(url, adminToken, slug);
  return created.data.apiKey.key;
}

export interface LoadResult {
  name: string;
  requestsPerSecond: number;
  p99Ms: number;
  non2xx: number;
  errors: number;
  /** The answer's size (body and headers, as read), when the target asked for it. */
  bytesPerRequest?: number;
  /** CPU time (user and system) the target's `cpuOf` process spent per request, in µs. */
  cpuMicrosPerRequest?: number;
}

/**
 * CPU time (user and system, ms) a process has used, from /proc (Linux): what a request costs the server
 * whatever else shares the machine, while req/s also counts the time other processes hold the cores.
 * Undefined where /proc is absent.
 */
function cpuMillisOf(pid: number): number | undefined {
  const path = `/proc/${pid}/stat`;
  if (!existsSync(path)) return undefined;
  // Fields after the command's closing parenthesis: utime and stime are the 12th and 13th, in clock ticks
  // (100 per second on Linux).
  const fields = readFileSync(path, 'utf8').split(') ')[1]!.split(' ');
  return (Number(fields[11]) + Number(fields[12])) * 10;
}

/**
 * Loads one URL for DURATION_S seconds after a short warm-up; every answer must be a 2xx. `extra` passes
 * further autocannon options (fewer connections, request bodies); `warmUp: false` skips the warm-up.
 */
export async function load(
  name: string,
  url: string,
  headers: Record<string, string> = {},
  extra: Partial<autocannon.Options> & { warmUp?: boolean } = {},
): Promise<LoadResult> {
  const { warmUp = true, ...options } = extra;
  const base = { url, headers, connections: CONNECTIONS, ...options };
  if (warmUp) await autocannon({ ...base, duration: 1 });
  const result = await autocannon({ ...base, duration: DURATION_S });
  const outcome = {
    name,
    requestsPerSecond: Math.round(result.requests.average),
    p99Ms: result.latency.p99,
    non2xx: result.non2xx,
    errors: result.errors + result.timeouts,
  };
  if (outcome.non2xx || outcome.errors)
    throw new Error(`${name}: ${outcome.non2xx} non-2xx, ${outcome.errors} errors`);
  return outcome;
}

export interface Target {
  name: string;
  url: string;
  headers?: Record<string, string>;
  extra?: Partial<autocannon.Options>;
  /** The process whose CPU time per request to report (the server answering `url`). */
  cpuOf?: number;
}

/**
 * Loads the targets in turn, ROUNDS times, DURATION_S / ROUNDS seconds a turn (after a warm-up of each),
 * each round starting with the next target. This machine's speed drifts by ±10% over a minute; alternating
 * makes the drift weigh on every target alike, so ratios between them hold still. req/s = all requests over all rounds' time; p99 = the worst
 * round's. Every answer must be a 2xx.
 */
export async function loadAlternating(targets: Target[]): Promise<LoadResult[]> {
  const options = (target: Target, duration: number) => ({
    url: target.url,
    headers: target.headers ?? {},
    connections: CONNECTIONS,
    ...target.extra,
    duration,
  });
  for (const target of targets) await autocannon(options(target, 1));
  const totals = targets.map((target) => ({
    ...target,
    requests: 0,
    seconds: 0,
    p99: 0,
    bad: 0,
    bytes: 0,
    cpuMs: 0,
  }));
  for (let round = 0; round < ROUNDS; round++) {
    // Each round starts with another target: no target always follows the same one.
    const order = totals.map((_, index) => totals[(index + round) % totals.length]!);
    for (const total of order) {
      const cpuBefore = total.cpuOf === undefined ? undefined : cpuMillisOf(total.cpuOf);
      const result = await autocannon(options(total, DURATION_S / ROUNDS));
      const cpuAfter = total.cpuOf === undefined ? undefined : cpuMillisOf(total.cpuOf);
      if (cpuBefore !== undefined && cpuAfter !== undefined) total.cpuMs += cpuAfter - cpuBefore;
      total.bytes += result.throughput.total;
      total.requests += result.requests.total;
      total.seconds += result.duration;
      total.p99 = Math.max(total.p99, result.latency.p99);
      total.bad += result.non2xx + result.errors; // errors include timeouts
    }
  }
  return totals.map((total) => {
    if (total.bad) throw new Error(`${total.name}: ${total.bad} non-2xx answers or errors`);
    return {
      name: total.name,
      requestsPerSecond: Math.round(total.requests / total.seconds),
      p99Ms: total.p99,
      non2xx: 0,
      errors: 0,
      bytesPerRequest: Math.round(total.bytes / total.requests),
      ...(total.cpuOf !== undefined && total.cpuMs > 0
        ? { cpuMicrosPerRequest: Math.round((total.cpuMs * 1000) / total.requests) }
        : {}),
    };
  });
}

export async function getJson<T>(
  url: string,
  headers: Record<string, string> = {},
  init: RequestInit = {},
): Promise<T> {
  const response = await fetch(url, {
    ...init,
    headers: { ...headers, ...(init.body ? { 'content-type': 'application/json' } : {}) },
  });
  if (!response.ok)
    throw new Error(`${init.method ?? 'GET'} ${url}: ${response.status} ${await response.text()}`);
  return (await response.json()) as T;
}

export const ratio = (value: number, baseline: number) => Math.round((value / baseline) * 100) / 100;

export function report(title: string, rows: Array<LoadResult & { ratio?: number; target?: string }>): void {
  console.log(`\n### ${title} (${DURATION_S}s, ${CONNECTIONS} connections)\n`);
  console.log('| scenario | req/s | p99 ms | ratio | target |');
  console.log('|---|---:|---:|---:|---|');
  for (const row of rows) {
    console.log(
      `| ${row.name} | ${row.requestsPerSecond} | ${row.p99Ms} | ${row.ratio ?? ''} | ${row.target ?? ''} |`,
    );
  }
}

/** Benchmarks publish and create far more than a plan allows: the operator's override, as in production. */
async function liftPlanLimits(url: string, adminToken: string, organization: string): Promise<void> {
  await getJson(
    `${url}/admin/v1/organizations/${organization}/limits`,
    { authorization: `Bearer ${adminToken}` },
    {
      method: 'PUT',
      body: JSON.stringify({ apiRequests: 1e9, expertVersions: 1e9, apiKeys: 1e9, connections: 1e9 }),
    },
  );
}

/** An organization of the database-bound read benchmarks, with its owner key and its keys' ids. */
export interface ReadTenant {
  index: number;
  id: string;
  slug: string;
  authorization: string;
  keyIds: string[];
}

/**
 * The data of the database-bound read benchmarks (issue 32): `organizations` organizations with 3 keys, a
 * project and 6 Experts each (150 Experts for the registry list with 25), made through `cadre`'s API. If
 * seeding fails, `cadre` is stopped before the error is thrown: no service outlives the benchmark.
 */
export async function seedReadTenants(
  cadre: Awaited<ReturnType<typeof startCadre>>,
  organizations: number,
): Promise<ReadTenant[]> {
  try {
    return await seedTenants(cadre.url, cadre.bootstrap.adminToken, organizations);
  } catch (error) {
    await cadre.stop();
    throw error;
  }
}

async function seedTenants(url: string, adminToken: string, organizations: number): Promise<ReadTenant[]> {
  const tenants: ReadTenant[] = [];
  const run = Date.now().toString(36);
  for (let index = 0; index < organizations; index++) {
    const slug = `reads-${run}-${index}`;
    const key = await createBenchOrganization(url, adminToken, slug);
    const headers = { authorization: `Bearer ${key}` };
    const post = (path: string, body: unknown) =>
      getJson<{ data: { id: string } }>(`${url}${path}`, headers, {
        method: 'POST',
        body: JSON.stringify(body),
      });
    for (const name of ['deploy', 'ci'])
      await post('/api/v1/api-keys', { name, grants: { type: 'organization', permissions: ['*'] } });
    await post('/api/v1/projects', { slug: 'web', name: 'Web' });
    for (let expert = 0; expert < 6; expert++) {
      await post('/registry/experts', {
        name: `${slug}-writer-${expert}`,
        version: '1.0.0',
        minRuntimeVersion: '0.1.0',
        description: 'A benchmark Expert',
        instruction: 'Write short, exact answers.',
        skills: { '@service/base': { type: 'mcpStdioSkill', command: 'npx', packageName: '@cadre/base' } },
      });
    }
    const me = await getJson<{ data: { organization: { id: string } } }>(`${url}/api/v1/me`, headers);
    const keys = await getJson<{ apiKeys: Array<{ id: string }> }>(`${url}/api/v1/api-keys`, headers);
    tenants.push({
      index,
      id: me.data.organization.id,
      slug,
      authorization: headers.authorization,
      keyIds: keys.apiKeys.map((row) => row.id),
    });
  }
  return tenants;
}
