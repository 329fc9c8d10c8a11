import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { type CryptoKey, exportJWK, generateKeyPair } from 'jose';
import Provider from 'oidc-provider';
import { expect } from 'vitest';
import { createManualClock } from '../../src/lib/clock.js';
import { generateKeyEntry, parseKeyRing } from '../../src/lib/key-ring.js';
import { parseOutboundAllowance } from '../../src/lib/outbound/address-policy.js';
import { type DnsServer, startDnsServer } from '../support/dns-server.js';
import { createOrganization, type TestOrganization } from '../support/fixtures.js';
import { authorizeAtProvider } from '../support/oidc-provider.js';
import { type StartOptions, startServer, type TestServer } from '../support/server.js';

const CLIENT_ID = 'cadre-sso';
const CLIENT_SECRET = 'the-sso-client-secret';

export interface Person {
  email: string;
  emailVerified?: boolean;
  groups?: string[];
}

/**
 * A real OpenID provider (oidc-provider) on loopback whose people the test names, with its signing key known
 * to the test (to forge tokens it did not issue) and one seam: `rewriteTokenAnswer` changes the token
 * endpoint's JSON answer on its way out (ID-token substitution, `alg: none`).
 */
export interface SsoProvider {
  issuer: string;
  people: Map<string, Person>;
  privateKey: CryptoKey;
  keyId: string;
  rewriteTokenAnswer: ((answer: Record<string, unknown>) => Promise<Record<string, unknown>>) | undefined;
  /** The token answers sent, newest last (to take an ID token from another sign-in). */
  idTokens: string[];
  /** Requests for the discovery document so far. */
  discoveryRequests: { count: number };
  close(): Promise<void>;
}

async function startSsoProvider(
  redirectUris: string[],
  clients: Array<{ id: string; secret: string }> = [],
): Promise<SsoProvider> {
  const { privateKey } = await generateKeyPair('RS256', { extractable: true });
  const keyId = 'test-key';
  const jwk = { ...(await exportJWK(privateKey)), kid: keyId, alg: 'RS256', use: 'sig' };
  let handler: ((req: never, res: never) => void) | undefined;
  const state: Pick<SsoProvider, 'rewriteTokenAnswer' | 'idTokens' | 'discoveryRequests'> = {
    rewriteTokenAnswer: undefined,
    idTokens: [],
    discoveryRequests: { count: 0 },
  };
  const server: Server = createServer((req, res) => {
    if (req.url?.startsWith('/.well-known/openid-configuration')) state.discoveryRequests.count += 1;
    if (req.method === 'POST' && req.url?.startsWith('/token')) {
      const end = res.end.bind(res) as (body?: unknown) => void;
      (res as { end: unknown }).end = (chunk: unknown) => {
        const answer = JSON.parse(String(chunk)) as Record<string, unknown>;
        if (typeof answer.id_token === 'string') state.idTokens.push(answer.id_token);
        const rewrite = state.rewriteTokenAnswer;
        if (!rewrite || res.statusCode !== 200) return end(chunk);
        void rewrite(answer).then((changed) => {
          const body = JSON.stringify(changed);
          res.setHeader('content-length', Buffer.byteLength(body));
          end(body);
        });
        return res;
      };
    }
    handler!(req as never, res as never);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const issuer = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const people = new Map<string, Person>();
  const provider = new Provider(issuer, {
    clients: [{ id: CLIENT_ID, secret: CLIENT_SECRET }, ...clients].map((client) => ({
      client_id: client.id,
      client_secret: client.secret,
      redirect_uris: redirectUris,
      grant_types: ['authorization_code'],
      response_types: ['code'],
    })),
    jwks: { keys: [jwk] },
    pkce: { required: () => true },
    scopes: ['openid', 'email', 'profile', 'groups'],
    claims: { openid: ['sub'], email: ['email', 'email_verified'], profile: ['name'], groups: ['groups'] },
    // The claims in the ID token itself (as Okta's and Entra's groups claims are), not only at userinfo.
    conformIdTokenClaims: false,
    features: { devInteractions: { enabled: true } },
    ttl: {
      AccessToken: 600,
      AuthorizationCode: 60,
      IdToken: 600,
      Interaction: 600,
      Session: 600,
      Grant: 600,
    },
    cookies: { keys: ['sso-test-provider-cookie-key'] },
    async findAccount(_ctx, id) {
      const person = people.get(id);
      return {
        accountId: id,
        claims: async () => ({
          sub: id,
          email: person?.email ?? `${id}@nowhere.test`,
          email_verified: person?.emailVerified ?? true,
          name: id,
          groups: person?.groups ?? [],
        }),
      };
    },
  });
  handler = provider.callback() as never;
  return {
    issuer,
    people,
    privateKey,
    keyId,
    get rewriteTokenAnswer() {
      return state.rewriteTokenAnswer;
    },
    set rewriteTokenAnswer(value) {
      state.rewriteTokenAnswer = value;
    },
    idTokens: state.idTokens,
    discoveryRequests: state.discoveryRequests,
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.closeAllConnections();
        server.close((error) => (error ? reject(error) : resolve()));
      }),
  };
}

export interface SsoWorld {
  server: TestServer;
  idp: SsoProvider;
  dns: DnsServer;
  clock: ReturnType<typeof createManualClock>;
  org: TestOrganization;
  domain: string;
  /** The key ring's one entry (to start an instance whose ring rotates to a newer key). */
  keyEntry: string;
  close(): Promise<void>;
}

/** Cadre, the provider and a DNS server on loopback; an organization with a verified domain and the provider registered. */
export async function startSsoWorld(options: Pick<StartOptions, 'rateLimits'> = {}): Promise<SsoWorld> {
  const clock = createManualClock(new Date());
  const dns = await startDnsServer();
  const loopback = parseOutboundAllowance(['127.0.0.1']).allowance;
  const keyEntry = generateKeyEntry('k1');
  const server = await startServer({
    ...options,
    clock,
    keyRing: parseKeyRing(keyEntry),
    sso: { allowedPrivateHosts: loopback, timeoutMs: 5_000 },
    domains: { proof: { dnsServers: [dns.address], allowance: loopback } },
  });
  const idp = await startSsoProvider([`${server.url}/auth/sso/callback`]);
  const org = await createOrganization(server, 'team');
  const domain = `${org.slug}.example`;
  await verifyDomain({ server, dns }, org, domain);
  const res = await server.request('PUT', '/api/v1/sso/provider', {
    key: org.ownerKey,
    body: { issuer: idp.issuer, clientId: CLIENT_ID, clientSecret: CLIENT_SECRET },
  });
  expect(res.status, res.text).toBe(200);
  return {
    server,
    idp,
    dns,
    clock,
    org,
    domain,
    keyEntry,
    close: async () => {
      await idp.close();
      await server.close();
      await dns.close();
    },
  };
}

/** Claims the domain for the organization and proves it with its TXT record. */
export async function verifyDomain(
  world: Pick<SsoWorld, 'server' | 'dns'>,
  org: TestOrganization,
  domain: string,
) {
  const claimed = await world.server.request<{
    data: { id: string; dnsRecord: { name: string; value: string } };
  }>('POST', '/api/v1/domains', { key: org.ownerKey, body: { domain } });
  expect(claimed.status, claimed.text).toBe(201);
  world.dns.setTxt(claimed.body.data.dnsRecord.name, [claimed.body.data.dnsRecord.value]);
  const verified = await world.server.request('POST', `/api/v1/domains/${claimed.body.data.id}/verify`, {
    key: org.ownerKey,
    body: { method: 'dns' },
  });
  expect(verified.status, verified.text).toBe(200);
}

const cookieOf = (setCookies: string[], name: string) =>
  setCookies.find((line) => line.startsWith(`${name}=`))?.split(';')[0];

export interface SignInOutcome {
  /** The callback's redirect. */
  location: URL;
  /** `cadre_session=…` when a session was made. */
  sessionCookie: string | undefined;
}

/** A browser's whole sign-in: Cadre's start, the provider's pages as `login`, Cadre's callback. */
export async function signInThroughProvider(
  world: Pick<SsoWorld, 'server'>,
  start: string,
  login: string,
  options: { tamperCallback?: (callback: URL) => URL; browserCookie?: string } = {},
): Promise<SignInOutcome & { callback: URL; browserCookie: string }> {
  const started = await fetch(`${world.server.url}${start}`, { redirect: 'manual' });
  expect(started.status, await started.clone().text()).toBe(302);
  const browserCookie = options.browserCookie ?? cookieOf(started.headers.getSetCookie(), 'cadre_sso')!;
  const callback = await authorizeAtProvider(
    started.headers.get('location')!,
    `${world.server.url}/auth/sso/callback`,
    {
      login,
    },
  );
  const outcome = await completeCallback(
    options.tamperCallback ? options.tamperCallback(callback) : callback,
    browserCookie,
  );
  return { ...outcome, callback, browserCookie };
}

export async function completeCallback(callback: URL, browserCookie: string | undefined) {
  const answer = await fetch(callback, {
    redirect: 'manual',
    headers: browserCookie ? { cookie: browserCookie } : {},
  });
  expect(answer.status, await answer.clone().text()).toBe(302);
  return {
    location: new URL(answer.headers.get('location')!),
    sessionCookie: cookieOf(answer.headers.getSetCookie(), 'cadre_session'),
  };
}

/** The session a cookie carries (GET /auth/session). */
export async function sessionOf(world: Pick<SsoWorld, 'server'>, cookie: string) {
  return world.server.request<{
    data: {
      user: { id: string; email: string };
      organization: { id: string };
      organizations: Array<{ id: string; role: string }>;
    };
  }>('GET', '/auth/session', { headers: { cookie } });
}
