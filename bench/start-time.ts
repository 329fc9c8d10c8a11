/**
 * Start-to-healthy time of `npm start` as a user runs it: from the command to the first 200 on /healthz.
 * First start: the build stamp is removed (as after a source change or a fresh clone: `scripts/build.mjs`
 * compiles) and the data directory is new (PGlite creates its cluster, migrations run, the demo
 * organization is seeded). Second start: nothing changed, the data directory exists. `START_RUNS` (3)
 * second starts, the median is reported.
 */
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('../', import.meta.url));
const RUNS = Number(process.env.START_RUNS ?? 3);

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

async function startToHealthy(dataDir: string): Promise<number> {
  const port = await freePort();
  const started = performance.now();
  // Its own process group: npm, its shell and node stop together.
  const child = spawn('npm', ['start', '--silent'], {
    cwd: ROOT,
    detached: true,
    stdio: 'ignore',
    env: { ...process.env, PORT: String(port), CADRE_DATA_DIR: dataDir, CADRE_LOG_LEVEL: 'warn' },
  });
  const exited = once(child, 'exit');
  try {
    for (;;) {
      if (child.exitCode !== null) throw new Error(`npm start exited with ${child.exitCode}`);
      const ok = await fetch(`http://127.0.0.1:${port}/healthz`).then(
        (res) => res.ok,
        () => false,
      );
      if (ok) return performance.now() - started;
      await new Promise((resolve) => setTimeout(resolve, 25));
    }
  } finally {
    process.kill(-child.pid!, 'SIGTERM');
    await exited;
  }
}

const dataDir = mkdtempSync(join(tmpdir(), 'cadre-start-bench-'));
try {
  rmSync(join(ROOT, 'dist/.build'), { recursive: true, force: true });
  const first = await startToHealthy(dataDir);
  const again: number[] = [];
  for (let i = 0; i < RUNS; i++) again.push(await startToHealthy(dataDir));
  again.sort((a, b) => a - b);
  const s = (ms: number) => `${(ms / 1000).toFixed(2)} s`;
  console.log(`first start (build + new data directory): ${s(first)}`);
  console.log(
    `second start (median of ${RUNS}; no build, existing data): ${s(again[Math.floor(RUNS / 2)]!)}`,
  );
  console.log(`second starts: ${again.map(s).join(', ')}`);
} finally {
  rmSync(dataDir, { recursive: true, force: true });
}
