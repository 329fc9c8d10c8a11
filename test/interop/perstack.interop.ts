import { execFile } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { request as httpsRequest } from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { findPrograms, missingProgramMessage } from '../../scripts/test-programs.mjs';
import { type CadreProcess, ROOT, startCadre } from '../support/process.js';
import { type MockLlm, startMockLlm } from './mock-llm.js';

// Perstack's real CLI and runtime (built unchanged from perstack-ai/perstack, installed by perstack-tools.ts)
// against a real Cadre serving TLS from a fresh embedded data directory (so the demo Experts are seeded), with
// a scripted language model on loopback (mock-llm.ts). docs/perstack.md, "Tested against Perstack's tools".

const run = promisify(execFile);
let dir: string;
let cadre: CadreProcess;
let llm: MockLlm;
let certFile: string;
let demoKey: string;
let team: { slug: string; key: string };
const suffix = Date.now().toString(36);

interface Ran {
  code: number;
  output: string;
}

/** Runs Perstack's CLI in `cwd` as a user would: the CA trusted through NODE_EXTRA_CA_CERTS, a key, no Docker. */
async function perstack(cwd: string, args: string[], key = demoKey, timeout = 120_000): Promise<Ran> {
  const bin = process.env.CADRE_PERSTACK_BIN;
  if (!bin) throw new Error('CADRE_PERSTACK_BIN is not set: run through `npm run test:interop`');
  const env = {
    PATH: process.env.PATH ?? '',
    HOME: join(dir, 'home'),
    NODE_EXTRA_CA_CERTS: certFile,
    PERSTACK_API_KEY: key,
    DEEPSEEK_API_KEY: 'mock-key',
    CI: 'true',
  };
  try {
    const { stdout, stderr } = await run(bin, args, { cwd, env, timeout, maxBuffer: 64 * 1024 * 1024 });
    return { code: 0, output: stdout + stderr };
  } catch (error) {
    const failed = error as { code?: number; stdout?: string; stderr?: string; message: string };
    return {
      code: typeof failed.code === 'number' ? failed.code : -1,
      output: `${failed.stdout ?? ''}${failed.stderr ?? ''}${failed.stdout || failed.stderr ? '' : failed.message}`,
    };
  }
}

/** A folder with a perstack.toml pointing at this Cadre and the mock model, and `experts` (TOML) after it. */
function project(name: string, experts: string, baseUrl = cadre.url): string {
  const folder = join(dir, name);
  mkdirSync(folder, { recursive: true });
  writeFileSync(
    join(folder, 'perstack.toml'),
    `model = "deepseek-chat"
runtime = "local"
perstackApiBaseUrl = "${baseUrl}"

[provider]
providerName = "deepseek"

[provider.setting]
baseUrl = "${llm.url}"

${experts}`,
  );
  return folder;
}

/** A JSON request to this Cadre, trusting its certificate (Node reads NODE_EXTRA_CA_CERTS only at start). */
function cadreJson<T>(method: string, path: string, headers: Record<string, string> = {}, body?: unknown) {
  const payload = body === undefined ? undefined : JSON.stringify(body);
  return new Promise<{ status: number; body: T }>((resolve, reject) => {
    const req = httpsRequest(
      new URL(path, cadre.url),
      {
        method,
        ca: readFileSync(certFile, 'utf8'),
        headers: { ...headers, ...(payload ? { 'content-type': 'application/json' } : {}) },
      },
      (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => {
          text += chunk;
        });
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body: JSON.parse(text) as T }));
      },
    );
    req.on('error', reject);
    req.end(payload);
  });
}

const registryRecord = (key: string) =>
  cadreJson<{ data: { expert: Record<string, unknown> } }>(
    'GET',
    `/registry/experts/${encodeURIComponent(key)}`,
  );

/** The runtime's JSON events (`perstack run` prints one a line), and whether one completed the run. */
const events = (output: string) =>
  output
    .split('\n')
    .filter((line) => line.startsWith('{'))
    .map((line) => JSON.parse(line) as { type?: string; text?: string; expertKey?: string });

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'cadre-interop-'));
  mkdirSync(join(dir, 'home'));
  const openssl = findPrograms().openssl;
  if (!openssl) throw new Error(missingProgramMessage('openssl'));
  // The self-signed certificate of docs/operations.md ("Local set-up"), made with the command given there.
  const command = readFileSync(join(ROOT, 'docs/operations.md'), 'utf8')
    .split('\n')
    .find((line) => line.startsWith('openssl req -x509 '));
  if (!command) throw new Error('docs/operations.md no longer gives the openssl command');
  await run(openssl, command.split(/\s+/).slice(1), { cwd: dir });
  certFile = join(dir, 'cadre-cert.pem');
  const tls = { cert: readFileSync(certFile, 'utf8'), key: readFileSync(join(dir, 'cadre-key.pem'), 'utf8') };
  const dataDir = join(dir, 'data');
  cadre = await startCadre({
    CADRE_DATA_DIR: dataDir,
    CADRE_TLS_CERT_FILE: certFile,
    CADRE_TLS_KEY_FILE: join(dir, 'cadre-key.pem'),
    NODE_EXTRA_CA_CERTS: certFile,
  });
  const bootstrap = JSON.parse(readFileSync(join(dataDir, 'bootstrap.json'), 'utf8')) as {
    adminToken: string;
    apiKey: string;
  };
  demoKey = bootstrap.apiKey;
  const slug = `team-${suffix}`;
  const created = await cadreJson<{ data: { apiKey: { key: string } } }>(
    'POST',
    '/admin/v1/organizations',
    { authorization: `Bearer ${bootstrap.adminToken}` },
    { slug, name: slug, accountType: 'team', owner: { email: `owner@${slug}.test` } },
  );
  if (created.status !== 201)
    throw new Error(`team organization: ${created.status} ${JSON.stringify(created.body)}`);
  const body = created.body;
  team = { slug, key: body.data.apiKey.key };
  llm = await startMockLlm(tls, ['chain-mid', 'chain-leaf']);
}, 120_000);

afterAll(async () => {
  await llm?.close();
  await cadre?.stop();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe("Perstack's CLI against Cadre", () => {
  let publishing: string;
  beforeAll(() => {
    publishing = project(
      'publishing',
      `[experts."bare-${suffix}"]
version = "1.0.0"
description = "No skills: Cadre adds the base skill"
instruction = "You answer briefly."

[experts."stdio-${suffix}"]
version = "1.0.0"
instruction = "You fetch things."

[experts."stdio-${suffix}".skills."fetcher"]
type = "mcpStdioSkill"
command = "npx"
packageName = "@example/fetch-mcp"

[experts."both-${suffix}"]
version = "1.0.0"
instruction = "You are refused."

[experts."both-${suffix}".skills."fs"]
type = "mcpStdioSkill"
command = "npx"
packageName = "@example/fs-mcp"
pick = ["read"]
omit = ["write"]

[experts."@team-${suffix}/chain-leaf"]
version = "1.0.0"
description = "The end of the chain"
instruction = "LEAF-INSTRUCTION-${suffix}: you are the last Expert of the chain."

[experts."@team-${suffix}/chain-mid"]
version = "1.0.0"
description = "The middle of the chain"
instruction = "You pass the work on to chain-leaf."
delegates = ["@team-${suffix}/chain-leaf"]
`,
    );
  });

  it('publishes an Expert with no skills; Cadre stores it with the base skill', async () => {
    const published = await perstack(publishing, ['publish', `bare-${suffix}`]);
    expect(published.output).toContain(`Published bare-${suffix}@1.0.0`);
    expect(published.code).toBe(0);
    const record = await registryRecord(`bare-${suffix}@1.0.0`);
    expect(Object.keys(record.body.data.expert.skills as object)).toEqual(['@perstack/base']);
  });

  it('publishes a stdio skill with only command and packageName', async () => {
    const published = await perstack(publishing, ['publish', `stdio-${suffix}`]);
    expect(published.output).toContain(`Published stdio-${suffix}@1.0.0`);
  });

  it('publishes team-scoped names with the team’s key, a delegate among them', async () => {
    for (const name of ['chain-leaf', 'chain-mid']) {
      const published = await perstack(publishing, ['publish', `@${team.slug}/${name}`], team.key);
      expect(published.output).toContain(`Published @${team.slug}/${name}@1.0.0`);
    }
  });

  it('shows the reason of a refused publish in its output', async () => {
    const refused = await perstack(publishing, ['publish', `both-${suffix}`]);
    expect(refused.code).not.toBe(0);
    expect(refused.output).toMatch(
      /Validation Failed: .*use either "pick" \(whitelist\) or "omit" \(blacklist\), not both/,
    );
  });

  it('tags, changes the status and unpublishes', async () => {
    const tagged = await perstack(publishing, ['tag', `bare-${suffix}@1.0.0`, 'stable']);
    expect(tagged.code, tagged.output).toBe(0);
    expect((await registryRecord(`bare-${suffix}@stable`)).status).toBe(200);
    const status = await perstack(publishing, ['status', `bare-${suffix}@1.0.0`, 'deprecated']);
    expect(status.code, status.output).toBe(0);
    expect((await registryRecord(`bare-${suffix}@1.0.0`)).body.data.expert.status).toBe('deprecated');
    const removed = await perstack(publishing, ['unpublish', `stdio-${suffix}@1.0.0`, '--force']);
    expect(removed.code, removed.output).toBe(0);
    expect((await registryRecord(`stdio-${suffix}@1.0.0`)).status).toBe(404);
  });
});

describe("Perstack's runtime runs what Cadre serves", () => {
  let running: string;
  beforeAll(() => {
    // A local Expert whose delegates live only in Cadre: chain-mid, which delegates to chain-leaf.
    running = project(
      'running',
      `[experts."lead"]
version = "1.0.0"
instruction = "You lead: hand the work to chain-mid."
delegates = ["@${team.slug}/chain-mid"]
`,
    );
  });

  it('install resolves the delegates from Cadre and writes perstack.lock', async () => {
    const installed = await perstack(running, ['install']);
    expect(installed.code, installed.output).toBe(0);
    const lock = readFileSync(join(running, 'perstack.lock'), 'utf8');
    expect(lock).toContain(`@${team.slug}/chain-mid`);
    expect(lock).toContain(`@${team.slug}/chain-leaf`);
  });

  it('runs a local Expert through a delegate chain that lives only in Cadre', async () => {
    const before = llm.prompts.length;
    const ran = await perstack(running, ['run', 'lead', 'Start the chain.']);
    expect(ran.code, ran.output).toBe(0);
    expect(events(ran.output).some((event) => event.type === 'completeRun')).toBe(true);
    // The leaf's instruction, read from Cadre, was what the model was given when the leaf ran.
    const prompts = llm.prompts.slice(before);
    expect(prompts.some((prompt) => prompt.system.includes(`LEAF-INSTRUCTION-${suffix}`))).toBe(true);
    expect(prompts.some((prompt) => prompt.tools.includes('chain-mid'))).toBe(true);
  });

  it.each(['writer@1.0.0', 'writer@1.1.0'])('runs the demo Expert %s to completion', async (key) => {
    const before = llm.prompts.length;
    const ran = await perstack(running, ['run', key, 'Rewrite: cadre serves experts.']);
    expect(ran.code, ran.output).toBe(0);
    expect(events(ran.output).some((event) => event.type === 'completeRun')).toBe(true);
    // Its own instruction, as published, reached the model.
    expect(
      llm.prompts.slice(before).some((prompt) => prompt.system.includes('Rewrite the notes you are given')),
    ).toBe(true);
  });

  it('runs the demo researcher as far as its GitHub skill, which needs a token', async () => {
    const ran = await perstack(running, ['run', 'researcher', 'Research Cadre.']);
    expect(ran.code).not.toBe(0);
    expect(ran.output).toContain('Skill github requires environment variable GITHUB_TOKEN');
    expect(ran.output).not.toMatch(/Base skill is not defined|is not iterable|reading 'length'/);
  });

  it('runs the demo web-search as far as its hosted search skill, which is not reachable from here', async () => {
    const ran = await perstack(running, ['run', 'web-search', 'Search for Cadre.']);
    expect(ran.code).not.toBe(0);
    // Starting the SSE skill is the step that fails: the host does not resolve (or cannot be reached) here.
    expect(ran.output, ran.output).toMatch(/SSE error: .*search\.example\.com/);
    expect(ran.output).not.toMatch(/Base skill is not defined|is not iterable|reading 'length'/);
  });

  it('works with a trailing slash in perstackApiBaseUrl', async () => {
    const slashed = project('slashed', '', `${cadre.url}/`);
    const ran = await perstack(slashed, ['run', 'writer@1.0.0', 'Rewrite: a slash.']);
    expect(ran.code, ran.output).toBe(0);
    expect(existsSync(join(slashed, 'perstack.toml'))).toBe(true);
  });
});
