import { decodeJwt, SignJWT } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectApiError } from '../support/assertions.js';
import {
  completeCallback,
  type SsoWorld,
  sessionOf,
  signInThroughProvider,
  startSsoWorld,
} from './harness.js';

// When the provider's session is gone, so is the way back in: Cadre's session ends at the organization's
// maximum age, the person must then authenticate at the provider again, the provider is asked to
// re-authenticate anyone who signed in there longer ago than that (max_age), and a provider that says
// login_required (or vouches for an older authentication) signs nobody in.

const MAX_AGE_S = 600;

let world: SsoWorld;
beforeAll(async () => {
  world = await startSsoWorld();
  world.idp.people.set('gina', { email: `gina@${world.domain}` });
  const saved = await world.server.request('PUT', '/api/v1/sso/provider', {
    key: world.org.ownerKey,
    body: { issuer: world.idp.issuer, clientId: 'cadre-sso', sessionMaxAgeSeconds: MAX_AGE_S },
  });
  expect(saved.status, saved.text).toBe(200);
});
afterAll(() => world.close());

const start = () => `/auth/sso/start?email=gina@${world.domain}`;

async function expectRefused(outcome: { location: URL; sessionCookie: string | undefined }, code: string) {
  expect(outcome.location.pathname).toBe('/sign-in');
  expect(outcome.location.searchParams.get('sso_error')).toBe(code);
  expect(outcome.sessionCookie).toBeUndefined();
}

describe('the provider session gone', () => {
  it('asks the provider to re-authenticate anyone who signed in there longer ago than the maximum age', async () => {
    const started = await fetch(`${world.server.url}${start()}`, { redirect: 'manual' });
    expect(started.status).toBe(302);
    const authorization = new URL(started.headers.get('location')!);
    expect(authorization.searchParams.get('max_age')).toBe(String(MAX_AGE_S));
    // The real provider answers max_age with auth_time in its ID token.
    const signedIn = await signInThroughProvider(world, start(), 'gina');
    expect(signedIn.sessionCookie).toBeDefined();
    expect(typeof decodeJwt(world.idp.idTokens.at(-1)!).auth_time).toBe('number');
  });

  it('an authentication older than the maximum age that the provider vouches for is refused', async () => {
    world.idp.rewriteTokenAnswer = async (answer) => {
      const claims = decodeJwt(answer.id_token as string);
      const stale = { ...claims, auth_time: Math.floor(Date.now() / 1000) - MAX_AGE_S - 3600 };
      const idToken = await new SignJWT(stale as never)
        .setProtectedHeader({ alg: 'RS256', kid: world.idp.keyId })
        .sign(world.idp.privateKey);
      return { ...answer, id_token: idToken };
    };
    try {
      await expectRefused(await signInThroughProvider(world, start(), 'gina'), 'invalid_id_token');
    } finally {
      world.idp.rewriteTokenAnswer = undefined;
    }
  });

  it('the provider answering login_required signs nobody in', async () => {
    const started = await fetch(`${world.server.url}${start()}`, { redirect: 'manual' });
    const browser = started.headers
      .getSetCookie()
      .find((line) => line.startsWith('cadre_sso='))!
      .split(';')[0]!;
    const state = new URL(started.headers.get('location')!).searchParams.get('state')!;
    // The provider's error answer to the redirect URI (OpenID Connect Core 3.1.2.6), as it sends it.
    const callback = new URL(`${world.server.url}/auth/sso/callback`);
    callback.searchParams.set('error', 'login_required');
    callback.searchParams.set('error_description', 'End-User authentication is required');
    callback.searchParams.set('state', state);
    callback.searchParams.set('iss', world.idp.issuer);
    await expectRefused(await completeCallback(callback, browser), 'provider_error');
  });

  it("Cadre's session ends at the maximum age; coming back goes through the provider's login again", async () => {
    const first = await signInThroughProvider(world, start(), 'gina');
    expect((await sessionOf(world, first.sessionCookie!)).status).toBe(200);
    world.clock.advance((MAX_AGE_S + 1) * 1000);
    expectApiError(await sessionOf(world, first.sessionCookie!), 401, 'unauthorized');
    // A browser without the provider's session: its login page is shown and signed in again.
    const again = await signInThroughProvider(world, start(), 'gina');
    expect(again.sessionCookie).toBeDefined();
    const session = await sessionOf(world, again.sessionCookie!);
    expect(session.status, session.text).toBe(200);
    expect(session.body.data.user.email).toBe(`gina@${world.domain}`);
  });
});
