import { expect } from 'vitest';
import { createManualClock } from '../../src/lib/clock.js';
import { generateKeyEntry, type KeyRing, parseKeyRing } from '../../src/lib/key-ring.js';
import { createOrganization, createProject, type TestOrganization } from '../support/fixtures.js';
import type { HttpResult } from '../support/http.js';
import {
  authorizeAtProvider,
  type BrowserOptions,
  startTestProvider,
  type TestProvider,
} from '../support/oidc-provider.js';
import { type StartOptions, startServer, type TestServer } from '../support/server.js';

export const CLIENT_ID = 'cadre-test-client';
export const CLIENT_SECRET = 'the-right-client-secret';
/** A client of the provider that authenticates with client_secret_post (the github preset's default). */
export const POST_CLIENT_ID = 'cadre-test-post-client';
export const ALLOWED_ORIGIN = 'https://app.example.test';

export interface OAuthWorld {
  server: TestServer;
  provider: TestProvider;
  clock: ReturnType<typeof createManualClock>;
  keyRing: KeyRing;
  /** The ring's one entry (`k1:…`), to build rotated rings from. */
  keyEntry: string;
  org: TestOrganization;
  projectId: string;
  environmentId: string;
  otherEnvironmentId: string;
  close(): Promise<void>;
}

/** Cadre and a real OpenID provider on loopback, an organization with a project and a verified integration. */
export async function startOAuthWorld(options: StartOptions = {}): Promise<OAuthWorld> {
  const clock = createManualClock(new Date());
  const keyEntry = generateKeyEntry('k1');
  const keyRing = parseKeyRing(keyEntry);
  const server = await startServer({
    clock,
    keyRing,
    oauthHttp: { allowInsecureRequests: true, timeoutMs: 5_000 },
    allowedReturnOrigins: [ALLOWED_ORIGIN],
    ...options,
  });
  const provider = await startTestProvider([
    {
      clientId: CLIENT_ID,
      clientSecret: CLIENT_SECRET,
      redirectUris: [`${server.url}/api/oauth/callback/oidc`],
    },
    {
      clientId: POST_CLIENT_ID,
      clientSecret: CLIENT_SECRET,
      redirectUris: [`${server.url}/api/oauth/callback/github`],
      tokenEndpointAuth: 'client_secret_post',
    },
  ]);
  const org = await createOrganization(server, 'team');
  const { project, environments } = await createProject(server, org);
  const world: OAuthWorld = {
    server,
    provider,
    clock,
    keyRing,
    keyEntry,
    org,
    projectId: project.id,
    environmentId: environments.find((e) => e.name === 'production')!.id,
    otherEnvironmentId: environments.find((e) => e.name === 'development')!.id,
    close: async () => {
      await provider.close();
      await server.close();
    },
  };
  await registerIntegration(world, org.id);
  return world;
}

export async function registerIntegration(
  world: Pick<OAuthWorld, 'server' | 'provider'>,
  org: string,
  overrides: Record<string, unknown> = {},
) {
  const res = await world.server.admin<{
    data: { integration: { id: string; version: { id: string; number: number } } };
  }>('POST', `/admin/v1/organizations/${org}/integrations`, {
    presetKey: 'oidc',
    issuer: world.provider.issuer,
    clientId: CLIENT_ID,
    clientSecret: CLIENT_SECRET,
    verified: true,
    ...overrides,
  });
  expect(res.status, res.text).toBe(201);
  return res.body.data.integration;
}

export interface Started {
  res: HttpResult;
  location: URL;
  /** `cadre_oauth_state=…`, as a client sends it back. */
  cookie: string;
  setCookie: string;
}

export async function startFlow(
  world: OAuthWorld,
  key: string,
  query: Record<string, string> = {},
  presetKey = 'oidc',
): Promise<Started> {
  const params = new URLSearchParams({
    projectId: world.projectId,
    environmentId: world.environmentId,
    ...query,
  });
  const res = await world.server.request('GET', `/api/oauth/start/${presetKey}?${params}`, { key });
  expect(res.status, res.text).toBe(302);
  const setCookie = res.headers.get('set-cookie') ?? '';
  return {
    res,
    location: new URL(res.headers.get('location')!),
    cookie: setCookie.split(';')[0]!,
    setCookie,
  };
}

/** The provider's redirect back to Cadre, after the user signed in and consented (or cancelled). */
export const approveAtProvider = (world: OAuthWorld, started: Started, options?: BrowserOptions) =>
  authorizeAtProvider(started.location.href, `${world.server.url}/api/oauth/callback/`, options);

/** Calls Cadre's callback the way a browser would (cookie) with the caller's credentials. */
export async function callback(
  world: OAuthWorld,
  redirect: URL | string,
  key: string | undefined,
  cookie?: string,
) {
  const url = typeof redirect === 'string' ? new URL(redirect, world.server.url) : redirect;
  const res = await world.server.request('GET', `${url.pathname}${url.search}`, {
    key,
    headers: cookie ? { cookie } : {},
  });
  return res;
}

/** The outcome a callback redirected to: the Location and its query. */
export function outcomeOf(res: HttpResult) {
  expect(res.status, res.text).toBe(302);
  const location = new URL(res.headers.get('location')!);
  return { location, params: Object.fromEntries(location.searchParams) };
}

/** Start, sign in and consent at the provider, call back: the whole dance. */
export async function connect(world: OAuthWorld, key: string, query: Record<string, string> = {}) {
  const started = await startFlow(world, key, query);
  const redirect = await approveAtProvider(world, started);
  const res = await callback(world, redirect, key, started.cookie);
  return { started, redirect, res, ...outcomeOf(res) };
}
