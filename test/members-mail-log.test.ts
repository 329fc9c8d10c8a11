import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createOrganization, type TestOrganization } from './support/fixtures.js';
import { captureLogs } from './support/log-capture.js';
import { startServer, type TestServer } from './support/server.js';
import { PASSWORD } from './support/session.js';

// What the operator sees: the request log never holds an invitation's token, and an SMTP server that cannot be
// reached leaves the invitation standing (the inviter copies the link) with one warning.
const { lines, logger } = captureLogs();
let server: TestServer;
let org: TestOrganization;

beforeAll(async () => {
  // Port 1 on loopback: nothing listens there, the connection is refused at once.
  server = await startServer({
    logger,
    smtp: { url: 'smtp://127.0.0.1:1', from: 'Cadre <cadre@example.test>' },
  });
  org = await createOrganization(server, 'team');
});
afterAll(() => server.close());

describe('invitations, from the log side', () => {
  it('an unreachable SMTP server: 201 with emailSent false, a warning, and the link still works', async () => {
    const res = await server.request<{ data: { token: string; emailSent: boolean; emailStatus: string } }>(
      'POST',
      `/api/v1/organizations/${org.slug}/invitations`,
      { key: org.ownerKey, body: { email: 'unmailed@people.test', role: 'member' } },
    );
    expect(res.status, res.text).toBe(201);
    expect(res.body.data).toMatchObject({ emailSent: false, emailStatus: 'failed' });
    expect(lines.some((line) => line.includes('an invitation email could not be sent'))).toBe(true);
    const { token } = res.body.data;
    expect((await server.request('GET', `/auth/invitations/${token}`)).status).toBe(200);
    const accepted = await server.request('POST', `/auth/invitations/${token}/accept`, {
      body: { name: 'Una Mailed', password: PASSWORD },
    });
    expect(accepted.status, accepted.text).toBe(200);
    // Once more (410), and with the token upper-cased in a query value (404 for the unknown route's answer).
    expect((await server.request('POST', `/auth/invitations/${token}/accept`, { body: {} })).status).toBe(
      410,
    );
    await server.request('GET', `/nowhere?next=%2Finvitations%2F${token}`);

    const requestLines = lines.filter((line) => line.includes('"url"'));
    expect(requestLines.filter((line) => line.includes('/auth/invitations/')).length).toBeGreaterThanOrEqual(
      3,
    );
    for (const line of lines) expect(line).not.toContain(token.slice(4));
    expect(lines.some((line) => line.includes('inv_[redacted]'))).toBe(true);
  });
});
