import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { http } from './support/http.js';
import { type CadreProcess, runCadreToExit, startCadre } from './support/process.js';

// CADRE_PLANS_FILE on the real process (docs/billing.md, "Your own plan catalogue"): the file's catalogue
// replaces the built-in one for the plans endpoint, checkout, usage and the limits; SIGHUP reads it again;
// a file that does not check out refuses the start with positions, or keeps the previous catalogue.

const ONE_PLAN = `[[plans]]
key = "free"
name = "Self-hosted"
description = "Everything, without limits."
amount = 0
currency = "usd"
`;
const TWO_PLANS = `[[plans]]
key = "free"
name = "Starter"
amount = 0
currency = "usd"
limits = { apiKeys = 3 }

[[plans]]
key = "pro"
name = "Pro"
amount = 1500
currency = "eur"
`;
const BROKEN = `[[plans]]
key = "free"
name = "Free"
amount = 0
currency = "usd"
limits = { apiKey = 5 }
`;

let root: string;
beforeAll(() => {
  root = mkdtempSync(join(tmpdir(), 'cadre-plans-'));
});
afterAll(() => rmSync(root, { recursive: true, force: true }));

type Plans = { data: { plans: Array<{ key: string; name: string; limits: Record<string, number | null> }> } };
type Usage = { data: { counters: Array<{ key: string; used: number; limit: number | null }> } };

const keyBody = (name: string) => ({
  name,
  grants: { type: 'organization', permissions: ['api-keys:read'] },
});
const checkout = (planKey: string) => ({
  planKey,
  successUrl: 'https://app.example.com/ok',
  cancelUrl: 'https://app.example.com/no',
});

describe('CADRE_PLANS_FILE: the operator owns the plan catalogue', () => {
  it('one plan without limits: plans, usage, keys past the built-in 5 and checkout follow the file; SIGHUP reloads it; a broken file keeps the previous one', async () => {
    const file = join(root, 'plans.toml');
    writeFileSync(file, ONE_PLAN);
    const dataDir = join(root, 'data');
    let cadre: CadreProcess | undefined;
    try {
      // A first start creates the embedded database and the demo organization: slow on a busy machine.
      cadre = await startCadre({ CADRE_DATA_DIR: dataDir, CADRE_PLANS_FILE: file }, 120_000);
      const url = cadre.url;
      const key = (JSON.parse(readFileSync(join(dataDir, 'bootstrap.json'), 'utf8')) as { apiKey: string })
        .apiKey;
      const plans = async () =>
        (await http<Plans>(url, 'GET', '/api/v1/billing/plans', { key })).body.data.plans;

      expect(await plans()).toEqual([
        expect.objectContaining({
          key: 'free',
          name: 'Self-hosted',
          limits: { apiRequests: null, expertVersions: null, apiKeys: null, connections: null },
        }),
      ]);
      // The built-in Free plan holds 5 active keys (the owner's among them): the file's plan holds any number.
      for (let i = 0; i < 6; i++) {
        const created = await http(url, 'POST', '/api/v1/api-keys', { key, body: keyBody(`k${i}`) });
        expect(created.status, created.text).toBe(200);
      }
      const usage = await http<Usage>(url, 'GET', '/api/v1/organizations/demo/billing/usage', { key });
      expect(usage.body.data.counters.find((counter) => counter.key === 'apiKeys')).toEqual({
        key: 'apiKeys',
        used: expect.any(Number),
        limit: null,
      });
      // "plus" is the built-in catalogue's, not this one's.
      const plus = await http(url, 'POST', '/api/v1/organizations/demo/billing/checkout', {
        key,
        headers: { 'idempotency-key': 'plans-1' },
        body: checkout('plus'),
      });
      expect(plus.status, plus.text).toBe(422);
      expect(plus.text).toContain('plan \\"plus\\" cannot be bought');

      // Another catalogue, read on SIGHUP: its plans, its limits, its paid plan sold.
      writeFileSync(file, TWO_PLANS);
      cadre.child.kill('SIGHUP');
      await expect.poll(async () => (await plans()).map((plan) => plan.key)).toEqual(['free', 'pro']);
      // Logs are written in batches (every 200 ms): the line follows.
      await expect.poll(() => cadre?.output() ?? '').toContain(`plan catalogue reloaded from ${file}`);
      const refused = await http<{ error: { code: string; message: string } }>(
        url,
        'POST',
        '/api/v1/api-keys',
        {
          key,
          body: keyBody('one-too-many'),
        },
      );
      expect(refused.status).toBe(403);
      expect(refused.body.error.code).toBe('plan_limit_exceeded');
      expect(refused.body.error.message).toContain('The Starter plan allows 3 active API keys');
      const pro = await http(url, 'POST', '/api/v1/organizations/demo/billing/checkout', {
        key,
        headers: { 'idempotency-key': 'plans-2' },
        body: checkout('pro'),
      });
      expect(pro.status, pro.text).toBe(200);

      // A file that does not check out: logged with its position, the previous catalogue stays.
      writeFileSync(file, BROKEN);
      cadre.child.kill('SIGHUP');
      await expect
        .poll(() => cadre?.output() ?? '')
        .toContain('plan catalogue reload failed, still serving the previous one');
      expect(cadre.output()).toContain('unknown key \\"apiKey\\"');
      expect((await plans()).map((plan) => plan.key)).toEqual(['free', 'pro']);
      expect(await cadre.stop()).toBe(0);
    } finally {
      await cadre?.stop('SIGKILL');
    }
  }, 240_000);

  it('a file that does not check out refuses the start, with every problem at its line and column', async () => {
    const file = join(root, 'broken.toml');
    writeFileSync(file, BROKEN);
    const dataDir = join(root, 'never');
    const run = await runCadreToExit({ CADRE_DATA_DIR: dataDir, CADRE_PLANS_FILE: file });
    expect(run.code).toBe(1);
    expect(run.output).toContain(`error[unknown-key]: unknown key "apiKey"\n --> ${file}:6:12\n`);
    expect(run.output).toContain('= hint: did you mean "apiKeys"?');
    expect(run.output).toContain(`CADRE_PLANS_FILE=${file}: 1 error in the plan catalogue\n`);
    expect(run.output).toContain('start-up refused: the plan catalogue (CADRE_PLANS_FILE) is invalid');
    expect(existsSync(dataDir)).toBe(false);

    const missing = await runCadreToExit({
      CADRE_DATA_DIR: dataDir,
      CADRE_PLANS_FILE: join(root, 'absent.json'),
    });
    expect(missing.code).toBe(1);
    expect(missing.output).toContain(
      `CADRE_PLANS_FILE=${join(root, 'absent.json')}: cannot read it (ENOENT)`,
    );
  }, 60_000);
});
