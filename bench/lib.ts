import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { closeSync, mkdtempSync, openSync, readFileSync } from 'node:fs';
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
 * Starts a server process whose output goes to a file, not to this process: reading a log line per request
 * here would steal CPU from autocannon and distort every figure.
 */
async function startProcess(args: string[], env: Record<string, string>): Promise<Server> {
  const logPath = join(mkdtempSync(join(tmpdir(), 'cadre-bench-log-')), 'out.log');
  const out = openSync(logPath, 'w');
  const child = spawn(process.execPath, args, {
    cwd: ROOT,
    env: { PATH: process.env.PATH ?? '', ...env },
    stdio: ['ignore', out, 'inherit'],
  });
  closeSync(out);
  const url = await new Promise<string>((resolve, reject) => {
    const started = Date.now();
    const timer = setInterval(() => {
      const output = readFileSync(logPath, 'utf8');
      const match = /"address":"(http:\/\/127\.0\.0\.1:\d+)"/.exec(output);
      if (match) {
        clearInterval(timer);
        resolve(match[1]!);
      } else if (child.exitCode !== null || Date.now() - started > 60_000) {
        clearInterval(timer);
        reject(new Error(`${args.join(' ')} did not start: ${output}`));
      }
    }, 50);
  });
  return {
    url,
    child,
    stop: async () => {
      if (child.exitCode !== null) return;
      child.kill('SIGTERM');
      await once(child, 'exit');
    },
  };
}

/** A bare node:http server that answers `body` to everything: the baseline of every ratio. */
export const startBare = (body: string) => startProcess(['bench/bare-server.mjs'], { BODY: body });

export const BENCH_ADMIN_TOKEN = 'b'.repeat(40);

/**
 * The built service (`npm run build` first), embedded PGlite unless DATABASE_URL is set. `main` names
 * another build's entry point, to compare two builds in one run.
 */
export async function startCadre(env: Record<string, string> = {}, main = 'dist/main.js') {
  const dataDir = mkdtempSync(join(tmpdir(), 'cadre-bench-'));
  const server = await startProcess([main], {
    HOST: '127.0.0.1',
    PORT: '0',
    CADRE_LOG_LEVEL: 'info',
    CADRE_DATA_DIR: dataDir,
    // Limits stay on (their cost is part of every request) but far above what the load generator sends.
    CADRE_RATE_LIMIT_READ: '1000000000',
    CADRE_RATE_LIMIT_WRITE: '1000000000',
    CADRE_RATE_LIMIT_ANONYMOUS_READ: '1000000000',
    CADRE_RATE_LIMIT_ANONYMOUS_WRITE: '1000000000',
    // A saturated loopback benchmark lags the event loop; measure throughput, not load shedding.
    CADRE_OVERLOAD_EVENT_LOOP_DELAY_MS: '60000',
    ...(process.env.DATABASE_URL
      ? { DATABASE_URL: process.env.DATABASE_URL, CADRE_ADMIN_TOKEN: 'b'.repeat(40) }
      : {}),
    ...env,
  });
  if (!process.env.DATABASE_URL) {
    const bootstrap = JSON.parse(readFileSync(join(dataDir, 'bootstrap.json'), 'utf8')) as {
      adminToken: string;
      apiKey: string;
    };
    return { ...server, bootstrap };
  }
  // A server database has no bootstrap file: make an organization (and its owner key) through the admin API.
  const slug = `bench-${Date.now().toString(36)}-${Math.random().toString(36).slice(2, 6)}`;
  const created = await getJson<{ data: { apiKey: { key: string } } }>(
    `${server.url}/admin/v1/organizations`,
    { authorization: `Bearer ${BENCH_ADMIN_TOKEN}` },
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
  const bootstrap = { adminToken: BENCH_ADMIN_TOKEN, apiKey: created.data.apiKey.key };
  return { ...server, bootstrap };
}

export interface LoadResult {
  name: string;
  requestsPerSecond: number;
  p99Ms: number;
  non2xx: number;
  errors: number;
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
}

/**
 * Loads the targets in turn, ROUNDS times, DURATION_S / ROUNDS seconds a turn (after a warm-up of each).
 * This machine's speed drifts by ±10% over a minute; alternating makes the drift weigh on every target
 * alike, so ratios between them hold still. req/s = all requests over all rounds' time; p99 = the worst
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
  const totals = targets.map((target) => ({ ...target, requests: 0, seconds: 0, p99: 0, bad: 0 }));
  for (let round = 0; round < ROUNDS; round++) {
    for (const total of totals) {
      const result = await autocannon(options(total, DURATION_S / ROUNDS));
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
