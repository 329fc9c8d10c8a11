import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectApiError, expectRegistryError } from '../support/assertions.js';
import { runCli } from '../support/cli-harness.js';
import { createOrganization, type TestOrganization } from '../support/fixtures.js';
import { ROOT } from '../support/process.js';
import { ADMIN_TOKEN, startServer, type TestServer } from '../support/server.js';
import {
  expertBody,
  getExpert,
  invariantViolations,
  keyPath,
  publish,
  published,
  uniqueName,
  versionsOf,
} from './helpers.js';

let server: TestServer;
let owner: TestOrganization;
let other: TestOrganization;

beforeAll(async () => {
  server = await startServer();
  [owner, other] = await Promise.all([
    createOrganization(server, 'personal'),
    createOrganization(server, 'personal'),
  ]);
});
afterAll(() => server.close());

const takedownPath = (key: string) => `/admin/v1/registry/experts/${encodeURIComponent(key)}/takedown`;
const takeDown = (key: string, reason = 'Distributes malware (case 42)') =>
  server.admin<{ data: { takedown: Record<string, string> } }>('POST', takedownPath(key), { reason });
const reasonOf = (res: { body: unknown }) => (res.body as { reason: string }).reason;

describe('POST /admin/v1/registry/experts/{expertKey}/takedown', () => {
  it('takes down a version another organization delegates to: 410 with the reason, delegators show it unavailable, audited', async () => {
    const name = uniqueName('victim');
    await published(server, owner.ownerKey, expertBody(name, '0.9.0'));
    await published(server, owner.ownerKey, expertBody(name, '1.0.0', { tags: ['stable'] }));
    const delegator = uniqueName('blocker');
    await published(server, other.ownerKey, expertBody(delegator, '1.0.0', { delegates: [`${name}@1.0.0`] }));
    // Read (and cached) before the takedown: the takedown must still show on it.
    expect((await getExpert(server, `${delegator}@1.0.0`)).body.data.expert).not.toHaveProperty(
      'unavailableDelegates',
    );

    // The owner cannot delete it, and is told that disabling is available.
    const refused = await server.request('DELETE', keyPath(`${name}@1.0.0`), { key: owner.ownerKey });
    expectRegistryError(refused, 400);
    expect(reasonOf(refused)).toContain(`other Experts delegate to it (${delegator}@1.0.0)`);
    expect(reasonOf(refused)).toContain('disable it instead');
    expect(reasonOf(refused)).toContain('{"status":"disabled"}');

    const res = await takeDown(`${name}@1.0.0`);
    expect(res.status, res.text).toBe(200);
    const takedown = res.body.data.takedown;
    expect(takedown).toEqual({
      key: `${name}@1.0.0`,
      expertId: expect.any(String),
      organizationId: owner.id,
      reason: 'Distributes malware (case 42)',
      takenDownAt: expect.any(String),
    });

    // Gone from reads: the exact version answers 410 with the reason; latest and its tag left with it.
    const gone = await getExpert(server, `${name}@1.0.0`);
    expectRegistryError(gone, 410);
    expect(reasonOf(gone)).toBe(
      `Expert ${name}@1.0.0 was taken down by the operator: Distributes malware (case 42)`,
    );
    expect((await getExpert(server, name)).body.data.expert.version).toBe('0.9.0');
    expectRegistryError(await getExpert(server, `${name}@stable`), 404);
    const versions = await versionsOf(server, name);
    expect(versions.body.data.versions.map((v) => v.version)).toEqual(['0.9.0']);
    const list = await server.request<{ data: { experts: Array<{ key: string }> } }>(
      'GET',
      `/registry/experts?filter=${name}`,
    );
    expect(list.body.data.experts.map((e) => e.key)).toEqual([`${name}@0.9.0`]);

    // The delegating Expert still reads, its delegate shown unavailable with the reason.
    const reader = await getExpert(server, `${delegator}@1.0.0`);
    expect(reader.status).toBe(200);
    expect(reader.body.data.expert.delegates).toEqual([`${name}@1.0.0`]);
    expect(reader.body.data.expert.unavailableDelegates).toEqual([
      { key: `${name}@1.0.0`, reason: 'Distributes malware (case 42)' },
    ]);

    // Publishing something that delegates to it is refused with the reason.
    const late = await publish(
      server,
      other.ownerKey,
      expertBody(uniqueName(), '1.0.0', { delegates: [`${name}@1.0.0`] }),
    );
    expectRegistryError(late, 400);
    expect(reasonOf(late)).toBe(
      `Delegate ${name}@1.0.0 was taken down by the operator: Distributes malware (case 42)`,
    );
    // The version number stays reserved; updating or deleting it answers 410.
    expectRegistryError(await publish(server, owner.ownerKey, expertBody(name, '1.0.0')), 400);
    expectRegistryError(
      await server.request('POST', keyPath(`${name}@1.0.0`), {
        key: owner.ownerKey,
        body: { status: 'disabled' },
      }),
      410,
    );
    expectRegistryError(
      await server.request('DELETE', keyPath(`${name}@1.0.0`), { key: owner.ownerKey }),
      410,
    );

    // Audited in the owning organization's trail, the way API key events are.
    const audit = await server.admin<{ data: { events: Array<Record<string, unknown>> } }>(
      'GET',
      `/admin/v1/organizations/${owner.id}/audit-events`,
    );
    const events = audit.body.data.events.filter((e) => e.action === 'expert.taken_down');
    expect(events).toEqual([
      expect.objectContaining({
        organizationId: owner.id,
        actorKind: 'admin',
        actorUserId: null,
        targetType: 'expert',
        targetId: `${name}@1.0.0`,
      }),
    ]);

    // Idempotent: a second takedown answers the first (its reason and time) and audits nothing more.
    const again = await takeDown(`${name}@1.0.0`, 'another reason');
    expect(again.status).toBe(200);
    expect(again.body.data.takedown).toEqual(takedown);
    const after = await server.admin<{ data: { events: Array<Record<string, unknown>> } }>(
      'GET',
      `/admin/v1/organizations/${owner.id}/audit-events`,
    );
    expect(after.body.data.events.filter((e) => e.action === 'expert.taken_down')).toHaveLength(1);
    expect(await invariantViolations(server.context.database)).toEqual([]);
  });

  it('takes down the only version of a scoped name (URL-encoded key): the name reads 404 and leaves the list', async () => {
    const team = await createOrganization(server, 'team');
    const name = `@${team.slug}/${uniqueName('solo')}`;
    await published(server, team.ownerKey, expertBody(name, '2.0.0'));
    const res = await takeDown(`${name}@2.0.0`, 'Court order');
    expect(res.status, res.text).toBe(200);
    expectRegistryError(await getExpert(server, `${name}@2.0.0`), 410);
    expectRegistryError(await getExpert(server, name), 404);
    const list = await server.request<{ meta: { total: number } }>(
      'GET',
      `/registry/experts?organizationId=${team.id}`,
    );
    expect(list.body.meta.total).toBe(0);
    expect(await invariantViolations(server.context.database)).toEqual([]);
  });

  it('answers 401 without the admin token, 404 for an unknown version, 422 for a non-exact key or no reason', async () => {
    const name = uniqueName();
    await published(server, owner.ownerKey, expertBody(name, '1.0.0'));
    const path = takedownPath(`${name}@1.0.0`);
    expectApiError(await server.request('POST', path, { body: { reason: 'x' } }), 401, 'unauthorized');
    expectApiError(
      await server.request('POST', path, { key: owner.ownerKey, body: { reason: 'x' } }),
      401,
      'unauthorized',
    );
    expectApiError(await takeDown(`${name}@9.9.9`), 404, 'not_found');
    expectApiError(await takeDown(`${uniqueName()}@1.0.0`), 404, 'not_found');
    expectApiError(await takeDown(name), 422, 'validation_failed');
    expectApiError(await takeDown(`${name}@latest`), 422, 'validation_failed');
    expectApiError(await takeDown('Not A Key'), 422, 'validation_failed');
    expectApiError(await server.admin('POST', path, { reason: '  ' }), 422, 'validation_failed');
    expectApiError(await server.admin('POST', path, {}), 422, 'validation_failed');
    // Nothing happened.
    expect((await getExpert(server, `${name}@1.0.0`)).status).toBe(200);
  });

  it('cadre admin expert takedown <key> --reason …', async () => {
    const name = uniqueName('cli');
    await published(server, owner.ownerKey, expertBody(name, '1.0.0'));
    const run = await runCli(['admin', 'expert', 'takedown', `${name}@1.0.0`, '--reason', 'Spam'], {
      cwd: ROOT,
      env: { CADRE_URL: server.url, CADRE_ADMIN_TOKEN: ADMIN_TOKEN },
    });
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toContain(`taken down  ${name}@1.0.0`);
    expect(run.stdout).toContain('reason      Spam');
    expect(reasonOf(await getExpert(server, `${name}@1.0.0`))).toContain('taken down by the operator: Spam');
    const missing = await runCli(['admin', 'expert', 'takedown', `${name}@3.0.0`, '--reason', 'Spam'], {
      cwd: ROOT,
      env: { CADRE_URL: server.url, CADRE_ADMIN_TOKEN: ADMIN_TOKEN },
    });
    expect(missing.code).not.toBe(0);
    expect(missing.stderr).toContain('404 not_found');
  });
});
