import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseOutboundAllowance } from '../../src/lib/outbound/address-policy.js';
import { expectApiError } from '../support/assertions.js';
import { type DnsServer, startDnsServer } from '../support/dns-server.js';
import { addMember, createKey, createOrganization, uniqueSlug } from '../support/fixtures.js';
import { startServer, type TestServer } from '../support/server.js';

// Verified domains against a real DNS server on loopback (TXT records in the wire format, asked through
// CADRE_DNS_SERVERS) and a real HTTP server for the well-known file. The file proof's origin is the one
// seam: https://{domain} on port 443 cannot be served by a test, so the origin points at the loopback server.

type Domain = {
  id: string;
  domain: string;
  status: string;
  method: string | null;
  dnsRecord: { name: string; value: string };
  httpFile: { url: string; content: string };
  lastError: string | null;
};

let server: TestServer;
let dns: DnsServer;
let files: Server;
const served = new Map<string, string>();

beforeAll(async () => {
  dns = await startDnsServer();
  files = createServer((request, response) => {
    const body = served.get(`${request.headers.host?.split(':')[0]}${request.url}`);
    response.writeHead(body === undefined ? 404 : 200, { 'content-type': 'text/plain' }).end(body ?? '');
  });
  await new Promise<void>((resolve) => files.listen(0, '127.0.0.1', resolve));
  const port = (files.address() as AddressInfo).port;
  server = await startServer({
    domains: {
      proof: {
        dnsServers: [dns.address],
        allowance: parseOutboundAllowance(['127.0.0.1']).allowance,
        origin: (domain) => `http://127.0.0.1:${port}/${domain}`,
      },
      lapseAfterFailures: 2,
      recheckAfterMs: 0,
      sweepIntervalMs: 3_600_000,
    },
  });
});
afterAll(async () => {
  await server.close();
  await dns.close();
  await new Promise((resolve) => files.close(resolve));
});

const claim = (key: string, domain: string) =>
  server.request<{ data: Domain }>('POST', '/api/v1/domains', { key, body: { domain } });
const verify = (key: string, id: string, method?: 'dns' | 'http') =>
  server.request<{ data: Domain }>('POST', `/api/v1/domains/${id}/verify`, {
    key,
    body: method ? { method } : {},
  });
const auditActions = async ({ ownerKey, slug }: { ownerKey: string; slug: string }) =>
  (
    await server.request<{ data: Array<{ action: string; metadata: Record<string, unknown> }> }>(
      'GET',
      `/api/v1/organizations/${slug}/audit-events?limit=100`,
      { key: ownerKey },
    )
  ).body.data.map((event) => event.action);
const eventTypes = async (key: string) =>
  (
    await server.request<{ data: Array<{ type: string }> }>('GET', '/api/v1/events?limit=100', { key })
  ).body.data.map((event) => event.type);

describe('verified domains', () => {
  it('a TXT record proves a claim; the domain then routes to the organization', async () => {
    const org = await createOrganization(server, 'team');
    const domain = `${uniqueSlug('acme')}.test`;
    const claimed = await claim(org.ownerKey, domain.toUpperCase());
    expect(claimed.status, claimed.text).toBe(201);
    const record = claimed.body.data;
    expect(record).toMatchObject({ domain, status: 'pending', method: null });
    expect(record.dnsRecord.name).toBe(`_cadre-challenge.${domain}`);
    expect(await server.context.domains.verifiedOrganizationFor(`ceo@${domain}`)).toBeUndefined();

    // Not published yet: the answer says what was found, and the domain stays pending.
    const early = await verify(org.ownerKey, record.id, 'dns');
    expect(early.status, early.text).toBe(200);
    expect(early.body.data).toMatchObject({ status: 'pending' });
    expect(early.body.data.lastError).toContain(`no TXT record at _cadre-challenge.${domain}`);

    dns.setTxt(record.dnsRecord.name, ['v=spf1 -all', record.dnsRecord.value]);
    const proven = await verify(org.ownerKey, record.id);
    expect(proven.status, proven.text).toBe(200);
    expect(proven.body.data).toMatchObject({ status: 'verified', method: 'dns', lastError: null });
    expect(dns.asked).toContain(`_cadre-challenge.${domain} TXT`);
    expect(await server.context.domains.verifiedOrganizationFor(`ceo@${domain.toUpperCase()}`)).toEqual({
      organizationId: org.id,
      domain,
    });
    expect(await auditActions(org)).toEqual(expect.arrayContaining(['domain.claimed', 'domain.verified']));
    expect(await eventTypes(org.ownerKey)).toContain('domain.verified');
  });

  it('a file at the well-known path proves a claim too', async () => {
    const org = await createOrganization(server, 'team');
    const domain = `${uniqueSlug('files')}.test`;
    const { data } = (await claim(org.ownerKey, domain)).body;
    served.set(`127.0.0.1/${domain}/.well-known/cadre-domain-verification.txt`, `${data.httpFile.content}\n`);
    const proven = await verify(org.ownerKey, data.id);
    expect(proven.body.data, proven.text).toMatchObject({ status: 'verified', method: 'http' });
  });

  it('a domain verified by one organization is refused to another, at claim and at proof', async () => {
    const first = await createOrganization(server, 'team');
    const second = await createOrganization(server, 'team');
    const domain = `${uniqueSlug('shared')}.test`;
    // Both claim while it is unproven: each gets a challenge of its own.
    const mine = (await claim(first.ownerKey, domain)).body.data;
    const theirs = (await claim(second.ownerKey, domain)).body.data;
    expect(theirs.dnsRecord.value).not.toBe(mine.dnsRecord.value);
    // Both records published (a shared DNS zone): the first proof wins, the second is 409.
    dns.setTxt(mine.dnsRecord.name, [mine.dnsRecord.value, theirs.dnsRecord.value]);
    expect((await verify(first.ownerKey, mine.id)).body.data.status).toBe('verified');
    const refused = await verify(second.ownerKey, theirs.id);
    expect(refused.status, refused.text).toBe(409);
    expect(refused.text).toContain('verified by another organization');
    const again = await claim(second.ownerKey, domain);
    expect(again.status, again.text).toBe(409);
    // The other organization's domain is invisible to the second.
    const peek = await server.request('GET', `/api/v1/domains/${mine.id}`, { key: second.ownerKey });
    expect(peek.status).toBe(404);
    expect((await server.context.domains.verifiedOrganizationFor(domain))?.organizationId).toBe(first.id);
  });

  it('the periodic re-check lapses a domain whose proof is gone: shown, audited, emitted', async () => {
    const org = await createOrganization(server, 'team');
    const domain = `${uniqueSlug('lapse')}.test`;
    const { data } = (await claim(org.ownerKey, domain)).body;
    dns.setTxt(data.dnsRecord.name, [data.dnsRecord.value]);
    expect((await verify(org.ownerKey, data.id)).body.data.status).toBe('verified');
    // Still there: the re-check keeps it.
    await server.context.domains.recheckDue();
    expect(
      (await server.request<{ data: Domain }>('GET', `/api/v1/domains/${data.id}`, { key: org.ownerKey }))
        .body.data.status,
    ).toBe('verified');
    dns.remove(data.dnsRecord.name);
    // One failure is not a lapse (a DNS hiccup); the second in a row is.
    await server.context.domains.recheckDue();
    const once = (
      await server.request<{ data: Domain }>('GET', `/api/v1/domains/${data.id}`, { key: org.ownerKey })
    ).body.data;
    expect(once.status).toBe('verified');
    expect(once.lastError).toContain('no TXT record');
    await server.context.domains.recheckDue();
    const lapsed = (
      await server.request<{ data: Domain }>('GET', `/api/v1/domains/${data.id}`, { key: org.ownerKey })
    ).body.data;
    expect(lapsed).toMatchObject({ status: 'lapsed' });
    expect(await server.context.domains.verifiedOrganizationFor(`a@${domain}`)).toBeUndefined();
    expect(await auditActions(org)).toContain('domain.lapsed');
    expect(await eventTypes(org.ownerKey)).toContain('domain.lapsed');
    // Published again, it is proven again.
    dns.setTxt(data.dnsRecord.name, [data.dnsRecord.value]);
    expect((await verify(org.ownerKey, data.id)).body.data.status).toBe('verified');
  });

  it('only the owner claims; members read; bad names are 422; removal frees the domain', async () => {
    const org = await createOrganization(server, 'team');
    const memberId = await addMember(server, org, 'admin');
    const admin = await createKey(server, org, memberId);
    const refused = await claim(admin.key, `${uniqueSlug('x')}.test`);
    expect(refused.status, refused.text).toBe(403);
    for (const bad of ['localhost', '10.0.0.1', 'a@b.com', 'https://acme.com/', 'acme..com']) {
      expect((await claim(org.ownerKey, bad)).status, bad).toBe(422);
    }
    const domain = `${uniqueSlug('gone')}.test`;
    const { data } = (await claim(org.ownerKey, domain)).body;
    expect((await server.request('GET', '/api/v1/domains', { key: admin.key })).status).toBe(200);
    const removed = await server.request('DELETE', `/api/v1/domains/${data.id}`, { key: org.ownerKey });
    expect(removed.status, removed.text).toBe(200);
    expect(await auditActions(org)).toContain('domain.removed');
    expect((await claim(org.ownerKey, domain)).status).toBe(201);
  });

  it('a public suffix cannot be claimed (422 at domain, saying why); a name registered under one can', async () => {
    const org = await createOrganization(server, 'team');
    // ICANN suffixes (com, co.uk, the IDN 公司.cn) and private ones where anyone gets a subdomain (github.io).
    for (const suffix of ['co.uk', 'github.io', 'com', 'COM.', '公司.cn', 'blogspot.com', 'pages.dev']) {
      const res = await claim(org.ownerKey, suffix);
      expectApiError(res, 422, 'validation_failed');
      expect(res.body, suffix).toMatchObject({
        error: { details: [{ path: 'domain', message: expect.stringContaining('public suffix') }] },
      });
    }
    for (const registered of [`${uniqueSlug('acme')}.co.uk`, `${uniqueSlug('acme')}.github.io`]) {
      const res = await claim(org.ownerKey, registered);
      expect(res.status, res.text).toBe(201);
    }
  });
});
