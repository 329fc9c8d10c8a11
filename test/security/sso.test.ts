import { decodeJwt, generateKeyPair, SignJWT } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  completeCallback,
  type SsoWorld,
  sessionOf,
  signInThroughProvider,
  startSsoWorld,
  verifyDomain,
} from '../sso/harness.js';
import { expectApiError } from '../support/assertions.js';
import { createOrganization } from '../support/fixtures.js';

// Attacks on single sign-on, each against the real flow with oidc-provider on loopback: every one must end
// on the sign-in page with its error and no session.

let world: SsoWorld;
beforeAll(async () => {
  world = await startSsoWorld();
  world.idp.people.set('mallory', { email: `mallory@${world.domain}` });
  world.idp.people.set('bob', { email: `bob@${world.domain}` });
});
afterAll(() => world.close());

const start = () => `/auth/sso/start?organization=${world.org.slug}`;

async function expectRefused(outcome: { location: URL; sessionCookie: string | undefined }, code: string) {
  expect(outcome.location.pathname).toBe('/sign-in');
  expect(outcome.location.searchParams.get('sso_error')).toBe(code);
  expect(outcome.sessionCookie).toBeUndefined();
}

/** The ID token re-signed with the provider's own key after `change` (so only the changed claim is wrong). */
const resigned =
  (change: (claims: Record<string, unknown>) => Record<string, unknown>) =>
  async (answer: Record<string, unknown>) => {
    const claims = change(decodeJwt(answer.id_token as string));
    const idToken = await new SignJWT(claims as never)
      .setProtectedHeader({ alg: 'RS256', kid: world.idp.keyId })
      .sign(world.idp.privateKey);
    return { ...answer, id_token: idToken };
  };

describe('the ID token', () => {
  it('issued for another sign-in (substituted) is refused: its nonce is not this one’s', async () => {
    const first = await signInThroughProvider(world, start(), 'bob');
    expect(first.sessionCookie).toBeDefined();
    const bobsToken = world.idp.idTokens.at(-1)!;
    world.idp.rewriteTokenAnswer = async (answer) => ({ ...answer, id_token: bobsToken });
    try {
      await expectRefused(await signInThroughProvider(world, start(), 'mallory'), 'invalid_id_token');
    } finally {
      world.idp.rewriteTokenAnswer = undefined;
    }
  });

  it('for another audience is refused', async () => {
    world.idp.rewriteTokenAnswer = resigned((claims) => ({ ...claims, aud: 'another-client' }));
    try {
      await expectRefused(await signInThroughProvider(world, start(), 'mallory'), 'invalid_id_token');
    } finally {
      world.idp.rewriteTokenAnswer = undefined;
    }
  });

  it('expired, or from another issuer, is refused', async () => {
    for (const change of [
      (claims: Record<string, unknown>) => ({ ...claims, exp: Math.floor(Date.now() / 1000) - 3600 }),
      (claims: Record<string, unknown>) => ({ ...claims, iss: 'https://evil.example' }),
    ]) {
      world.idp.rewriteTokenAnswer = resigned(change);
      try {
        await expectRefused(await signInThroughProvider(world, start(), 'mallory'), 'invalid_id_token');
      } finally {
        world.idp.rewriteTokenAnswer = undefined;
      }
    }
  });

  it('with alg "none" (unsigned) is refused', async () => {
    world.idp.rewriteTokenAnswer = async (answer) => {
      const [, payload] = (answer.id_token as string).split('.');
      const header = Buffer.from(JSON.stringify({ alg: 'none', typ: 'JWT' })).toString('base64url');
      return { ...answer, id_token: `${header}.${payload}.` };
    };
    try {
      await expectRefused(await signInThroughProvider(world, start(), 'mallory'), 'invalid_id_token');
    } finally {
      world.idp.rewriteTokenAnswer = undefined;
    }
  });

  it('signed by a key that is not the provider’s (same kid) is refused: the signature is checked', async () => {
    const { privateKey } = await generateKeyPair('RS256');
    world.idp.rewriteTokenAnswer = async (answer) => ({
      ...answer,
      id_token: await new SignJWT(decodeJwt(answer.id_token as string) as never)
        .setProtectedHeader({ alg: 'RS256', kid: world.idp.keyId })
        .sign(privateKey),
    });
    try {
      await expectRefused(await signInThroughProvider(world, start(), 'mallory'), 'invalid_id_token');
    } finally {
      world.idp.rewriteTokenAnswer = undefined;
    }
  });

  it('with an unverified email is refused, and no account is made', async () => {
    world.idp.people.set('unverified', { email: `unverified@${world.domain}`, emailVerified: false });
    await expectRefused(await signInThroughProvider(world, start(), 'unverified'), 'email_not_verified');
    expect(await world.server.context.tenancy.findUserByEmail(`unverified@${world.domain}`)).toBeUndefined();
  });
});

describe('the state', () => {
  it('replayed (the same callback twice) is refused the second time', async () => {
    const first = await signInThroughProvider(world, start(), 'bob');
    expect(first.sessionCookie).toBeDefined();
    await expectRefused(await completeCallback(first.callback, first.browserCookie), 'invalid_state');
  });

  it('brought back to another browser (login CSRF) is refused, and then useless in the first', async () => {
    const other = await fetch(`${world.server.url}${start()}`, { redirect: 'manual' });
    const otherCookie = other.headers.getSetCookie()[0]!.split(';')[0]!;
    const outcome = await signInThroughProvider(world, start(), 'bob', { browserCookie: otherCookie });
    await expectRefused(outcome, 'invalid_state');
    await expectRefused(await completeCallback(outcome.callback, undefined), 'invalid_state');
  });
});

describe('accounts', () => {
  it("another organization's provider cannot sign in an address at a domain it has not verified", async () => {
    const victimOrg = await createOrganization(world.server, 'team');
    await verifyDomain(world, victimOrg, `${victimOrg.slug}.example`);
    const victim = `ceo@${victimOrg.slug}.example`;
    // The attacker's provider (world.org's) vouches for the victim's address.
    world.idp.people.set('forged', { email: victim });
    await expectRefused(await signInThroughProvider(world, start(), 'forged'), 'domain_not_verified');
    expect(await world.server.context.tenancy.findUserByEmail(victim)).toBeUndefined();
  });
});

describe('the return path', () => {
  it('is never an open redirect: anything but a path of the console is refused (422)', async () => {
    for (const returnTo of [
      '//evil.test',
      'https://evil.test/',
      '/\\evil.test',
      '/..//evil.test',
      'javascript:alert(1)',
    ]) {
      const res = await world.server.request('GET', `${start()}&returnTo=${encodeURIComponent(returnTo)}`);
      expectApiError(res, 422, 'validation_failed');
    }
  });

  it('a path of the console is where the sign-in lands', async () => {
    const outcome = await signInThroughProvider(
      world,
      `${start()}&returnTo=${encodeURIComponent('/experts?q=1')}`,
      'bob',
    );
    expect(outcome.location.href).toBe(`${world.server.url}/experts?q=1`);
    expect((await sessionOf(world, outcome.sessionCookie!)).status).toBe(200);
  });
});
