import { execFile } from 'node:child_process';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tempProject } from '../../test/support/cli-harness.js';
import { FAKE_API_KEY, type FakeRegistry, startFakeRegistry } from '../../test/support/fake-registry.js';

// The real entry point in a real process: argument parsing, exit codes, stdout/stderr, env.
const root = join(import.meta.dirname, '../..');
const main = join(root, 'src/cli/main.ts');
const tsx = pathToFileURL(join(root, 'node_modules/tsx/dist/loader.mjs')).href;

async function cadre(args: string[], cwd: string, env: Record<string, string> = {}) {
  try {
    const { stdout, stderr } = await promisify(execFile)(process.execPath, ['--import', tsx, main, ...args], {
      cwd,
      env: { PATH: process.env.PATH ?? '', ...env },
    });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const e = error as { code: number; stdout: string; stderr: string };
    return { code: e.code, stdout: e.stdout, stderr: e.stderr };
  }
}

describe('the cadre binary', () => {
  let registry: FakeRegistry;
  beforeAll(async () => {
    registry = await startFakeRegistry();
  });
  afterAll(() => registry.close());

  it('prints the package version', async () => {
    const run = await cadre(['--version'], root);
    expect(run).toEqual({ code: 0, stdout: '0.1.0\n', stderr: '' });
  });

  it('exits 1 with colourless diagnostics for an invalid file', async () => {
    const dir = tempProject({ 'cadre.toml': 'maxSteps = 0\n' });
    const run = await cadre(['config', 'validate'], dir);
    expect(run.code).toBe(1);
    expect(run.stderr).toContain('error[range]: maxSteps must be at least 1\n --> cadre.toml:1:12');
    expect(run.stderr).not.toContain('\u001b[');
  });

  it('publishes a multi-Expert file with delegation and reads it back', async () => {
    const dir = tempProject({
      'cadre.toml':
        '[experts.lead]\ninstruction = "Lead."\ndelegates = ["helper"]\n[experts.helper]\ninstruction = "Help."\n',
    });
    const env = { CADRE_URL: registry.url, CADRE_API_KEY: FAKE_API_KEY };
    const run = await cadre(['publish'], dir, env);
    expect(run.stdout).toBe('published helper@1.0.0\npublished lead@1.0.0\n');
    expect(run.code).toBe(0);
    const info = await cadre(['experts', 'info', 'lead@latest', '--json'], dir, env);
    expect(JSON.parse(info.stdout)).toMatchObject({ key: 'lead@1.0.0', delegates: ['helper'] });
  });

  it('exits 2 when the registry cannot be reached', async () => {
    const url = `http://127.0.0.1:${await closedPort()}`;
    const run = await cadre(['experts', 'list', '--url', url], root);
    expect(run.code).toBe(2);
    expect(run.stderr).toBe(
      `error: cannot reach Cadre at ${url} (ECONNREFUSED)\n` +
        'hint: is the server running (npm start in the Cadre clone; GET /healthz answers when it is)? ' +
        'The URL came from --url: pass --url or set CADRE_URL to where it listens\n',
    );
  });
});

/** A loopback port nothing listens on (bound, then released). */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  const { port } = server.address() as { port: number };
  await new Promise((done) => server.close(done));
  return port;
}
