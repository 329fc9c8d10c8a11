import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generateKeyEntry, parseKeyRing } from '../src/lib/key-ring.js';
import { parseOutboundAllowance } from '../src/lib/outbound/address-policy.js';
import { runCli } from './support/cli-harness.js';
import { addMember, createKey, createOrganization, type TestOrganization } from './support/fixtures.js';
import { startServer, type TestServer } from './support/server.js';
import { type Receiver, startReceiver, status } from './support/webhook-receiver.js';

// `cadre webhooks …` and `cadre events list` against a real server (with a key ring: secrets are encrypted).
let server: TestServer;
let org: TestOrganization;
let memberKey: string;
let receiver: Receiver;

interface Endpoint {
  id: string;
  url: string;
  description: string;
  eventTypes: string[];
  enabled: boolean;
  secretRotation: { previousSecretExpiresAt: string } | null;
}

beforeAll(async () => {
  receiver = await startReceiver();
  server = await startServer({
    keyRing: parseKeyRing(generateKeyEntry('k1')),
    // The receiver listens on loopback: allowed as an operator allows it for local development.
    webhooks: {
      allowedPrivateHosts: parseOutboundAllowance(['127.0.0.1']).allowance,
      worker: { pollIntervalMs: 50 },
    },
  });
  org = await createOrganization(server, 'team');
  const memberId = await addMember(server, org, 'member');
  memberKey = (await createKey(server, org, memberId)).key;
});
afterAll(async () => {
  await server.close();
  await receiver.close();
});

async function waitFor<T>(read: () => T | undefined, what: string, ms = 15_000): Promise<T> {
  const until = Date.now() + ms;
  for (;;) {
    const value = read();
    if (value !== undefined) return value;
    if (Date.now() > until) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

const cli = (args: string[], key = org.ownerKey, url = server.url) =>
  runCli(args, { cwd: process.cwd(), env: { CADRE_URL: url, CADRE_API_KEY: key } });

describe('cadre webhooks', () => {
  it('creates (the secret printed once), lists, updates, disables, enables, rotates and deletes', async () => {
    const created = await cli([
      'webhooks',
      'create',
      'https://ci.example.com/cadre',
      '--events',
      'expert.published, member.joined',
      '--description',
      'CI deploys',
    ]);
    expect(created.code, created.stderr).toBe(0);
    const secret = created.stdout.trim();
    expect(secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    expect(() => new Webhook(secret)).not.toThrow();
    expect(created.stderr).toMatch(
      /created \S+ for https:\/\/ci\.example\.com\/cadre \(2 event types, enabled\)/,
    );
    expect(created.stderr).toContain('shown only this once');

    const listed = await cli(['webhooks', 'list', '--json']);
    expect(listed.code, listed.stderr).toBe(0);
    const [endpoint] = JSON.parse(listed.stdout) as Endpoint[];
    expect(endpoint).toMatchObject({
      url: 'https://ci.example.com/cadre',
      eventTypes: ['expert.published', 'member.joined'],
      description: 'CI deploys',
      enabled: true,
    });
    const id = endpoint!.id;
    const table = await cli(['webhooks', 'list']);
    expect(table.stdout.split('\n')[0]).toMatch(/^ID\s+STATUS\s+URL\s+EVENTS\s+DESCRIPTION$/);
    expect(table.stdout).toMatch(
      new RegExp(
        `${id}\\s+enabled\\s+https://ci\\.example\\.com/cadre\\s+expert\\.published,member\\.joined\\s+CI deploys`,
      ),
    );
    expect(table.stderr).toContain('1 endpoint');
    for (const run of [listed, table]) expect(run.stdout + run.stderr).not.toContain(secret);

    const updated = await cli([
      'webhooks',
      'update',
      id,
      '--events',
      'api_key.expiring',
      '--endpoint-url',
      'https://ci.example.com/v2',
    ]);
    expect(updated.code, updated.stderr).toBe(0);
    expect(updated.stdout.trim()).toBe(`updated ${id}: https://ci.example.com/v2 (api_key.expiring)`);

    const disabled = await cli(['webhooks', 'disable', id]);
    expect(disabled.stdout.trim()).toBe(`${id} is disabled`);
    expect((await cli(['webhooks', 'list'])).stdout).toMatch(new RegExp(`${id}\\s+disabled\\s`));
    const enabled = await cli(['webhooks', 'enable', id, '--json']);
    expect((JSON.parse(enabled.stdout) as Endpoint).enabled).toBe(true);

    const rotated = await cli(['webhooks', 'rotate-secret', id]);
    expect(rotated.code, rotated.stderr).toBe(0);
    const next = rotated.stdout.trim();
    expect(next).toMatch(/^whsec_/);
    expect(next).not.toBe(secret);
    expect(rotated.stderr).toMatch(/the previous one keeps signing alongside it until \d{4}-\d\d-\d\dT/);
    expect(rotated.stderr).toContain('shown only this once');
    const shown = JSON.parse((await cli(['webhooks', 'list', '--json'])).stdout) as Endpoint[];
    expect(shown[0]!.secretRotation).not.toBeNull();

    const deleted = await cli(['webhooks', 'delete', id]);
    expect(deleted.code, deleted.stderr).toBe(0);
    expect(deleted.stdout.trim()).toBe(`deleted ${id} (https://ci.example.com/v2)`);
    expect((await cli(['webhooks', 'list', '--json'])).stdout.trim()).toBe('[]');
    const again = await cli(['webhooks', 'delete', id]);
    expect(again.code).toBe(1);
    expect(again.stderr).toContain('404 not_found');
  });

  it('exit 1 for bad input or a refusal (naming the closest event type), 2 when nothing answers', async () => {
    const typo = await cli(['webhooks', 'create', 'https://x.example.com', '--events', 'expert.publish']);
    expect(typo.code).toBe(1);
    expect(typo.stderr).toContain('unknown event type "expert.publish" (did you mean expert.published?)');
    expect(typo.stderr).toContain('member.role_changed');
    const plain = await cli(['webhooks', 'create', 'http://x.example.com', '--events', 'member.joined']);
    expect(plain.code).toBe(1);
    expect(plain.stderr).toContain('422');
    expect(plain.stderr).toContain('must be an https URL');
    expect((await cli(['webhooks', 'create', 'https://x.example.com'])).code).toBe(1);
    const nothing = await cli(['webhooks', 'update', 'we_1']);
    expect(nothing.code).toBe(1);
    expect(nothing.stderr).toContain('nothing to change');

    const refused = await cli(['webhooks', 'list'], memberKey);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain('403 forbidden');
    expect(refused.stderr).not.toContain('whsec_');
    const noKey = await runCli(['webhooks', 'list'], { cwd: process.cwd(), env: { CADRE_URL: server.url } });
    expect(noKey.code).toBe(1);
    expect(noKey.stderr).toContain('webhooks:manage');
    expect((await cli(['webhooks', 'list'], org.ownerKey, 'http://127.0.0.1:1')).code).toBe(2);
  });

  it('a Cadre without CADRE_ENCRYPTION_KEYS cannot keep a secret: exit 2, naming the setting', async () => {
    const bare = await startServer();
    try {
      const team = await createOrganization(bare, 'team');
      const refused = await cli(
        ['webhooks', 'create', 'https://ci.example.com/cadre', '--events', 'member.joined'],
        team.ownerKey,
        bare.url,
      );
      expect(refused.code).toBe(2);
      expect(refused.stderr).toContain('503 service_unavailable');
      expect(refused.stderr).toContain('CADRE_ENCRYPTION_KEYS');
      expect(refused.stdout).toBe('');
    } finally {
      await bare.close();
    }
  });
});

describe('cadre webhooks deliveries|test|resend', () => {
  it('sends a test event, lists the deliveries with their last attempt, and resends an event', async () => {
    receiver.respond('/cli', status(200, 'received'));
    const created = await cli([
      'webhooks',
      'create',
      receiver.url('/cli'),
      '--events',
      'member.joined',
      '--json',
    ]);
    expect(created.code, created.stderr).toBe(0);
    const id = (JSON.parse(created.stdout) as { endpoint: Endpoint }).endpoint.id;
    const sent = await cli(['webhooks', 'test', id]);
    expect(sent.code, sent.stderr).toBe(0);
    expect(sent.stdout).toMatch(
      /^test event queued: delivery \S+ \(the webhook-id header\), event \S+, pending$/m,
    );
    expect(sent.stderr).toContain(`cadre webhooks deliveries ${id}`);
    const first = await waitFor(() => receiver.at('/cli')[0], 'the test event');
    expect(first.event.type).toBe('webhook.test');

    await addMember(server, org, 'member');
    await waitFor(() => receiver.at('/cli')[1], 'the member.joined event');
    // Both delivered (the worker runs beside the commands): read until nothing is pending.
    let resolved = await cli(['webhooks', 'deliveries', id]);
    for (let tries = 0; resolved.stdout.includes('pending') && tries < 100; tries++) {
      await new Promise((resolve) => setTimeout(resolve, 100));
      resolved = await cli(['webhooks', 'deliveries', id]);
    }
    expect(resolved.code, resolved.stderr).toBe(0);
    const lines = resolved.stdout.trim().split('\n');
    expect(lines[0]).toMatch(/^TIME\s+EVENT\s+STATUS\s+ATTEMPTS\s+LAST ATTEMPT\s+NEXT TRY\s+EVENT ID$/);
    expect(lines[1]).toMatch(/member\.joined\s+succeeded\s+1\s+HTTP 200 \(\d+ ms\)\s+-\s+\S+$/);
    expect(lines[2]).toMatch(/webhook\.test\s+succeeded\s+1\s+HTTP 200 \(\d+ ms\)/);
    expect(resolved.stderr).toContain('2 deliveries');

    const json = JSON.parse((await cli(['webhooks', 'deliveries', id, '--json'])).stdout) as Array<{
      id: string;
      eventId: string;
      eventType: string;
      attempts: Array<{ responseExcerpt: string }>;
    }>;
    const joined = json.find((d) => d.eventType === 'member.joined')!;
    expect(joined.attempts[0]!.responseExcerpt).toBe('received');

    const resent = await cli(['webhooks', 'resend', id, joined.eventId]);
    expect(resent.code, resent.stderr).toBe(0);
    expect(resent.stdout).toContain(`member.joined queued again: delivery ${joined.id}`);
    const again = await waitFor(() => receiver.at('/cli')[2], 'the resent event');
    expect(again.headers['webhook-id']).toBe(joined.id);

    expect((await cli(['webhooks', 'deliveries', id, '--status', 'failed'])).stdout.trim()).toMatch(/^TIME/);
    const badStatus = await cli(['webhooks', 'deliveries', id, '--status', 'lost']);
    expect(badStatus.code).toBe(1);
    expect(badStatus.stderr).toContain('must be one of pending, succeeded, failed');
    const unknown = await cli(['webhooks', 'resend', id, 'evt_nope']);
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toContain('404 not_found');
    await cli(['webhooks', 'disable', id]);
    const disabled = await cli(['webhooks', 'test', id]);
    expect(disabled.code).toBe(1);
    expect(disabled.stderr).toContain('409 conflict');
    expect(disabled.stderr).toContain('enable it first');
    expect((await cli(['webhooks', 'test', id], memberKey)).code).toBe(1);
  });
});

describe('cadre events list', () => {
  it('lists the events newest first, filters by type, oldest first, and JSON with payloads', async () => {
    const second = await addMember(server, org, 'admin');
    const all = await cli(['events', 'list', '--limit', '100']);
    expect(all.code, all.stderr).toBe(0);
    const lines = all.stdout.trim().split('\n');
    expect(lines[0]).toMatch(/^TIME\s+TYPE\s+RESOURCE\s+ACTOR\s+ID$/);
    expect(all.stdout).toContain('member.joined');
    expect(all.stdout).toContain('api_key.created');
    const times = lines.slice(1).map((line) => line.split(/\s+/)[0]!);
    expect([...times].sort().reverse()).toEqual(times);

    const joined = await cli(['events', 'list', '--type', 'member.joined', '--order', 'oldest', '--json']);
    expect(joined.code, joined.stderr).toBe(0);
    const events = JSON.parse(joined.stdout) as Array<{ type: string; data: { member: { userId: string } } }>;
    expect(events.every((e) => e.type === 'member.joined')).toBe(true);
    expect(events.length).toBeGreaterThanOrEqual(2);
    expect(events.at(-1)!.data.member.userId).toBe(second);

    const one = await cli(['events', 'list', '--limit', '1']);
    expect(one.stdout.trim().split('\n')).toHaveLength(2);
    expect(one.stderr).toContain('1 event (more: raise --limit)');

    const typo = await cli(['events', 'list', '--type', 'member.join']);
    expect(typo.code).toBe(1);
    expect(typo.stderr).toContain('did you mean member.joined?');
    expect((await cli(['events', 'list', '--order', 'sideways'])).code).toBe(1);
    const refused = await cli(['events', 'list'], memberKey);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain('403 forbidden');
  });
});
