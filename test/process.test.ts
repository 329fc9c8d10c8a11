import { existsSync, readFileSync, statSync } from 'node:fs';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { createServer, request as httpRequest } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli, tempProject } from './support/cli-harness.js';
import { onPostgres } from './support/database.js';
import { http } from './support/http.js';
import { ROOT, runCadreToExit, startCadre } from './support/process.js';

describe('embedded quick start (npm start with no set-up)', () => {
  let dataDir: string;
  beforeAll(async () => {
    dataDir = await mkdtemp(join(tmpdir(), 'cadre-start-'));
  });
  afterAll(() => rm(dataDir, { recursive: true, force: true }));

  it('creates the demo organization, writes bootstrap.json 0600, prints its path but no secret, and keeps data across restarts', async () => {
    const first = await startCadre({ CADRE_DATA_DIR: dataDir });
    const path = join(dataDir, 'bootstrap.json');
    const bootstrap = JSON.parse(await readFile(path, 'utf8')) as {
      adminToken: string;
      apiKey: string;
      organization: { slug: string };
      owner: { id: string; email: string; password: string };
    };
    expect(statSync(path).mode & 0o777).toBe(0o600);
    expect(bootstrap.organization.slug).toBe('demo');
    expect(first.output()).toContain(path);
    expect(first.output()).not.toContain(bootstrap.apiKey);
    expect(first.output()).not.toContain(bootstrap.adminToken);
    expect(first.output()).not.toContain(bootstrap.owner.password);

    // A newcomer signs in to the console at once, and the registry has something to browse.
    const signIn = await http(first.url, 'POST', '/auth/login', {
      body: { email: 'demo@localhost', password: bootstrap.owner.password },
    });
    expect(signIn.status, signIn.text).toBe(200);
    // The sign-in page may point at bootstrap.json while the generated password still works.
    const hint = () => http<{ data: { demoPassword: boolean } }>(first.url, 'GET', '/auth/sign-in-hints');
    expect((await hint()).body).toEqual({ data: { demoPassword: true } });
    const experts = await http<{ data: { experts: Array<{ name: string }> } }>(
      first.url,
      'GET',
      '/registry/experts?sort=name&order=asc',
    );
    expect(experts.body.data.experts.map((e) => e.name)).toEqual(['researcher', 'web-search', 'writer']);
    const console = await http(first.url, 'GET', '/');
    expect(console.status).toBe(200);
    expect(console.text).toContain('<div id="root"></div>');

    const keys = await http(first.url, 'GET', '/api/v1/api-keys', { key: bootstrap.apiKey });
    expect(keys.status).toBe(200);
    const created = await http(first.url, 'POST', '/admin/v1/organizations', {
      key: bootstrap.adminToken,
      body: { slug: 'acme', name: 'Acme', accountType: 'team', owner: { email: 'o@acme.test' } },
    });
    expect(created.status).toBe(201);
    expect(await first.stop()).toBe(0);

    const second = await startCadre({ CADRE_DATA_DIR: dataDir });
    const again = JSON.parse(await readFile(path, 'utf8')) as typeof bootstrap;
    expect(again).toEqual(bootstrap);
    expect((await http(second.url, 'GET', '/api/v1/api-keys', { key: bootstrap.apiKey })).status).toBe(200);
    const duplicate = await http(second.url, 'POST', '/admin/v1/organizations', {
      key: bootstrap.adminToken,
      body: { slug: 'acme', name: 'Acme', accountType: 'team', owner: { email: 'o@acme.test' } },
    });
    expect(duplicate.status).toBe(409);
    expect(second.output()).not.toContain(bootstrap.apiKey);
    // Once the demo owner has a password of their own, the file's is stale: no hint any more.
    const changed = await http(second.url, 'PUT', `/admin/v1/users/${bootstrap.owner.id}/password`, {
      key: bootstrap.adminToken,
      body: { password: 'a-password-of-my-own-42' },
    });
    expect(changed.status, changed.text).toBe(200);
    const after = await http<{ data: { demoPassword: boolean } }>(second.url, 'GET', '/auth/sign-in-hints');
    expect(after.body).toEqual({ data: { demoPassword: false } });
    expect(await second.stop()).toBe(0);
  }, 120_000); // two start-ups of the real process, each migrating and seeding on a busy 2-core machine

  it('drains an in-flight write on SIGTERM, exits 0, and the acknowledged write is there after restart', async () => {
    const cadre = await startCadre({ CADRE_DATA_DIR: dataDir });
    const { adminToken } = JSON.parse(await readFile(join(dataDir, 'bootstrap.json'), 'utf8')) as {
      adminToken: string;
    };
    const url = new URL(cadre.url);
    const body = JSON.stringify({
      slug: 'drained',
      name: 'Drained',
      accountType: 'team',
      owner: { email: 'o@d.test' },
    });
    const answer = new Promise<number>((resolve, reject) => {
      const req = httpRequest(
        {
          host: url.hostname,
          port: url.port,
          method: 'POST',
          path: '/admin/v1/organizations',
          headers: {
            authorization: `Bearer ${adminToken}`,
            'content-type': 'application/json',
            'content-length': Buffer.byteLength(body),
          },
        },
        (res) => {
          res.resume();
          resolve(res.statusCode ?? 0);
        },
      );
      req.on('error', reject);
      // Authenticated and half-way through its body: in flight when SIGTERM arrives.
      req.write(body.slice(0, 10));
      setTimeout(() => {
        cadre.child.kill('SIGTERM');
        setTimeout(() => req.end(body.slice(10)), 300);
      }, 200);
    });
    expect(await answer).toBe(201);
    expect(await cadre.stop()).toBe(0);
    expect(cadre.output()).toContain('shutting down');

    const restarted = await startCadre({ CADRE_DATA_DIR: dataDir });
    const again = await http(restarted.url, 'POST', '/admin/v1/organizations', {
      key: adminToken,
      body: JSON.parse(body),
    });
    expect(again.status).toBe(409);
    expect(await restarted.stop()).toBe(0);
  });

  it('runs the README walkthrough: the example cadre.toml validates and publishes onto a fresh demo instance', async () => {
    const walkDir = await mkdtemp(join(tmpdir(), 'cadre-walk-'));
    try {
      const server = await startCadre({ CADRE_DATA_DIR: join(walkDir, 'data') });
      const bootstrap = JSON.parse(await readFile(join(walkDir, 'data', 'bootstrap.json'), 'utf8')) as {
        apiKey: string;
      };
      const project = tempProject({
        'cadre.toml': readFileSync(join(ROOT, 'docs/examples/cadre.toml'), 'utf8'),
        'cadre.schema.json': readFileSync(join(ROOT, 'docs/examples/cadre.schema.json'), 'utf8'),
      });
      const env = { CADRE_URL: server.url, CADRE_API_KEY: bootstrap.apiKey };
      const validate = await runCli(['config', 'validate'], { cwd: project, env });
      expect(validate.code, validate.stderr).toBe(0);
      const publish = await runCli(['publish'], { cwd: project, env });
      expect(publish.code, publish.stderr).toBe(0);
      const experts = await http<{ data: { experts: Array<{ name: string; version: string }> } }>(
        server.url,
        'GET',
        '/registry/experts?sort=name&order=asc',
      );
      expect(experts.body.data.experts.map((e) => `${e.name}@${e.version}`)).toEqual([
        'researcher@1.2.0',
        'web-search@1.0.0',
        'writer@2.0.0',
      ]);
      expect(await server.stop()).toBe(0);
    } finally {
      await rm(walkDir, { recursive: true, force: true });
    }
  });
});

describe('one server per embedded data directory', () => {
  let root: string;
  beforeAll(async () => {
    root = await mkdtemp(join(tmpdir(), 'cadre-lock-'));
  });
  afterAll(() => rm(root, { recursive: true, force: true }));

  it('a second server on the same CADRE_DATA_DIR refuses to start; after a SIGKILL the next start works', async () => {
    const dataDir = join(root, 'shared');
    const first = await startCadre({ CADRE_DATA_DIR: dataDir });
    try {
      const second = await runCadreToExit({ CADRE_DATA_DIR: dataDir });
      expect(second.code).toBe(1);
      expect(second.output).toContain(
        'start-up refused: another Cadre server is already running on the data',
      );
      expect(second.output).not.toContain('migrations applied');
      // The first one still serves.
      expect((await http(first.url, 'GET', '/readyz')).status).toBe(200);
    } finally {
      expect(await first.stop('SIGKILL')).toBe(null);
    }
    const restarted = await startCadre({ CADRE_DATA_DIR: dataDir });
    expect((await http(restarted.url, 'GET', '/readyz')).status).toBe(200);
    expect(await restarted.stop()).toBe(0);
  }, 120_000); // three start-ups of the real process

  it('a bad environment is refused with what to fix, not a stack trace, before anything is touched', async () => {
    const dataDir = join(root, 'bad-env');
    const run = await runCadreToExit({
      CADRE_DATA_DIR: dataDir,
      NODE_ENV: 'production',
      CADRE_BILLING_PROVIDER: 'local',
    });
    expect(run.code).toBe(1);
    // Plain lines like the CLI's, not a JSON log line: each problem, then the refusal.
    expect(run.output).toContain(
      'error: CADRE_BILLING_PROVIDER=local: the built-in "local" provider activates paid plans without payment',
    );
    expect(run.output).toContain('\nstart-up refused: a problem in the environment (README.md');
    expect(run.output).not.toContain('{"level"');
    expect(run.output).not.toMatch(/\n\s+at /); // no stack frames
    expect(existsSync(dataDir)).toBe(false);
  });

  it('a taken port fails the start at once, before the data directory is touched', async () => {
    const taken = createServer();
    await new Promise<void>((resolve) => taken.listen(0, '127.0.0.1', resolve));
    const { port } = taken.address() as AddressInfo;
    const dataDir = join(root, 'never-opened');
    try {
      const run = await runCadreToExit({ CADRE_DATA_DIR: dataDir, PORT: String(port) });
      expect(run.code).toBe(1);
      expect(run.output).toContain(`start-up refused: cannot listen on 127.0.0.1:${port} (EADDRINUSE)`);
      expect(existsSync(dataDir)).toBe(false);
      expect(run.ms).toBeLessThan(10_000);
    } finally {
      await new Promise((resolve) => taken.close(resolve));
    }
  });
});

// Several processes on one database need a server: PGlite is one process's embedded database.
if (onPostgres())
  describe('on a PostgreSQL server', () => {
    const serverUrl = process.env.DATABASE_URL ?? '';
    const name = `cadre_proc_${process.pid}`;
    let databaseUrl: string;

    beforeAll(async () => {
      const admin = new pg.Client({ connectionString: serverUrl });
      await admin.connect();
      await admin.query(`CREATE DATABASE ${name}`);
      await admin.end();
      const url = new URL(serverUrl);
      url.pathname = `/${name}`;
      databaseUrl = url.toString();
    });
    afterAll(async () => {
      const admin = new pg.Client({ connectionString: serverUrl });
      await admin.connect();
      await admin.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await admin.end();
    });

    it('two instances started at the same moment both come up; migrations apply once', async () => {
      const env = { DATABASE_URL: databaseUrl, CADRE_ADMIN_TOKEN: 'x'.repeat(40) };
      const [a, b] = await Promise.all([startCadre(env), startCadre(env)]);
      for (const instance of [a, b]) expect((await http(instance.url, 'GET', '/readyz')).status).toBe(200);
      const client = new pg.Client({ connectionString: databaseUrl });
      await client.connect();
      const { rows } = await client.query(
        'SELECT name, count(*)::int AS n FROM cadre_migrations GROUP BY name',
      );
      await client.end();
      expect(rows.length).toBeGreaterThan(0);
      for (const row of rows) expect(row.n).toBe(1);
      expect(a.output()).not.toContain('x'.repeat(40));
      expect(await a.stop()).toBe(0);
      expect(await b.stop()).toBe(0);
    });
  });
