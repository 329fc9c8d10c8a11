import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from './support/cli-harness.js';
import { addMember, createKey, createOrganization, type TestOrganization } from './support/fixtures.js';
import { startServer, type TestServer } from './support/server.js';

// `cadre members invite|invitations|revoke-invitation|role|remove|transfer-ownership` against a real server
// (no SMTP: the inviter copies the link the command prints).
let server: TestServer;
let org: TestOrganization;

beforeAll(async () => {
  server = await startServer({ consoleUrl: 'http://console.example.test' });
  org = await createOrganization(server, 'team');
});
afterAll(() => server.close());

const cli = (args: string[], key = org.ownerKey, url = server.url) =>
  runCli(args, { cwd: process.cwd(), env: { CADRE_URL: url, CADRE_API_KEY: key } });

describe('cadre members', () => {
  it('invites (printing the link), lists and revokes invitations', async () => {
    // No --org: the key's own organization.
    const invited = await cli(['members', 'invite', '--email', 'cli@people.test', '--role', 'member']);
    expect(invited.code, invited.stderr).toBe(0);
    const link = invited.stdout.trim();
    expect(link).toMatch(/^http:\/\/console\.example\.test\/invitations\/inv_[0-9A-Za-z]{43}$/);
    expect(invited.stderr).toMatch(/no email was sent/);

    const listed = await cli(['members', 'invitations', '--org', org.slug, '--json']);
    expect(listed.code, listed.stderr).toBe(0);
    const pending = JSON.parse(listed.stdout) as Array<{ id: string; email: string }>;
    const invitation = pending.find((i) => i.email === 'cli@people.test');
    expect(invitation).toBeDefined();
    expect(listed.stdout).not.toContain(link.split('/').at(-1)!);
    // `members list` (organization-commands.ts) is still there beside the new subcommands.
    expect((await cli(['members', 'list', '--org', org.id])).code).toBe(0);
    const table = await cli(['members', 'invitations']);
    expect(table.stdout).toContain('cli@people.test');

    // The link again, for an inviter who lost it: a fresh copy, the previous one stops working.
    const again = await cli(['members', 'invitation-link', invitation!.id]);
    expect(again.code, again.stderr).toBe(0);
    const copy = again.stdout.trim();
    expect(copy).toMatch(/^http:\/\/console\.example\.test\/invitations\/inv_[0-9A-Za-z]{43}$/);
    expect(copy).not.toBe(link);
    expect(again.stderr).toContain('the previous copy no longer works');
    expect((await server.request('GET', `/auth/invitations/${link.split('/').at(-1)!}`)).status).toBe(404);

    const revoked = await cli(['members', 'revoke-invitation', invitation!.id, '--org', org.slug]);
    expect(revoked.code, revoked.stderr).toBe(0);
    expect(revoked.stdout).toContain('revoked');
    const token = copy.split('/').at(-1)!;
    const accept = await server.request('POST', `/auth/invitations/${token}/accept`, {
      body: { name: 'Late', password: 'a long enough password' },
    });
    expect(accept.status).toBe(410);
  });

  it('changes a role, removes a member (revoking their keys) and transfers the ownership', async () => {
    const memberId = await addMember(server, org, 'member');
    const memberKey = await createKey(server, org, memberId, {
      type: 'organization',
      permissions: ['members:read'],
    });
    const role = await cli(['members', 'role', memberId, '--role', 'admin']);
    expect(role.code, role.stderr).toBe(0);
    expect(role.stdout.trim()).toBe(`${memberId} is now admin`);

    const removed = await cli(['members', 'remove', memberId, '--org', org.slug]);
    expect(removed.code, removed.stderr).toBe(0);
    expect(removed.stdout).toContain('1 API key revoked, 0 sessions ended, 0 invitations they sent revoked');
    expect((await server.request('GET', '/api/v1/me', { key: memberKey.key })).status).toBe(401);

    const team = await createOrganization(server, 'team');
    const nextId = await addMember(server, team, 'admin');
    const transferred = await cli(['members', 'transfer-ownership', nextId], team.ownerKey);
    expect(transferred.code, transferred.stderr).toBe(0);
    expect(transferred.stdout).toContain(`${nextId} is now the owner; ${team.ownerId} is now admin`);
  });

  it('exit 1 for a refused request or bad input, 2 when the server cannot be reached', async () => {
    const memberId = await addMember(server, org, 'member');
    const memberKey = (await createKey(server, org, memberId)).key;
    const refused = await cli(
      ['members', 'invite', '--email', 'x@people.test', '--role', 'member'],
      memberKey,
    );
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(/members:manage/);
    const owner = await cli(['members', 'remove', org.ownerId]);
    expect(owner.code).toBe(1);
    expect(owner.stderr).toMatch(/transfer the ownership/);
    const badRole = await cli(['members', 'role', memberId, '--role', 'owner']);
    expect(badRole.code).toBe(1);
    expect(badRole.stderr).toMatch(/admin or member/);
    const unreachable = await cli(['members', 'invitations'], org.ownerKey, 'http://127.0.0.1:1');
    expect(unreachable.code).toBe(2);
    const noKey = await runCli(['members', 'invitations'], {
      cwd: process.cwd(),
      env: { CADRE_URL: server.url },
    });
    expect(noKey.code).toBe(1);
  });

  it('refuses the organization given positionally (the form before --org) with the spelling that works', async () => {
    const old = await cli(['members', 'invitations', org.slug]);
    expect(old.code).toBe(1);
    expect(old.stderr).toContain(`unexpected argument "${org.slug}": name the organization with --org`);
    expect(old.stderr).toContain(`hint: cadre members invitations --org ${org.slug}`);
    // A command's own arguments are kept in the hint; only the extra word moves to --org.
    const role = await cli(['members', 'role', 'usr_someone', org.slug, '--role', 'admin']);
    expect(role.stderr).toContain(`hint: cadre members role usr_someone --org ${org.slug}`);
  });

  it("names another organization's slug or id as an unknown one (exit 1, not found)", async () => {
    const other = await createOrganization(server, 'team');
    for (const name of [other.slug, other.id, 'no-such-org']) {
      const foreign = await cli([
        'members',
        'invite',
        '--org',
        name,
        '--email',
        'y@people.test',
        '--role',
        'member',
      ]);
      expect([name, foreign.code, foreign.stderr]).toEqual([
        name,
        1,
        expect.stringContaining(`Organization ${name} not found`),
      ]);
    }
    const theirs = await cli(['members', 'invitations', '--json'], other.ownerKey);
    expect(JSON.parse(theirs.stdout)).toEqual([]);
  });
});
