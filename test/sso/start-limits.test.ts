import { and, count, eq, max } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PENDING_SIGN_INS_PER_ORGANIZATION } from '../../src/modules/sso/sign-in.service.js';
import { ssoSignIns } from '../../src/modules/sso/sso.tables.js';
import { expectApiError } from '../support/assertions.js';
import { type SsoWorld, signInThroughProvider, startSsoWorld } from './harness.js';

// What a single sign-on start costs: the provider's discovery document is read once per provider and kept
// (until it expires, or the owner saves the provider again), and starts have a budget per client address.

const STARTS_PER_WINDOW = 4;
const DISCOVERY_TTL_MS = 15 * 60_000;

let world: SsoWorld;
beforeAll(async () => {
  world = await startSsoWorld({ rateLimits: { ssoStarts: STARTS_PER_WINDOW } });
});
afterAll(() => world.close());

const start = () =>
  fetch(`${world.server.url}/auth/sso/start?organization=${world.org.slug}`, { redirect: 'manual' });
const discoveries = () => world.idp.discoveryRequests.count;
/** A fresh rate-limit window (the limiter reads the same clock). */
const nextWindow = () => world.clock.advance(61_000);

describe("the provider's discovery", () => {
  it('is read once and kept: starts and callbacks do not read it again', async () => {
    const before = discoveries();
    for (let i = 0; i < 3; i += 1) expect((await start()).status).toBe(302);
    world.idp.people.set('erin', { email: `erin@${world.domain}` });
    const signedIn = await signInThroughProvider(world, `/auth/sso/start?email=erin@${world.domain}`, 'erin');
    expect(signedIn.sessionCookie).toBeDefined();
    expect(discoveries()).toBe(before);
  });

  it('is read again once it expires', async () => {
    world.clock.advance(DISCOVERY_TTL_MS + 1_000);
    const before = discoveries();
    expect((await start()).status).toBe(302);
    expect(discoveries()).toBe(before + 1);
    expect((await start()).status).toBe(302);
    expect(discoveries()).toBe(before + 1);
  });

  it('is read again when the owner saves the provider, and that answer is the one kept', async () => {
    nextWindow();
    const before = discoveries();
    const saved = await world.server.request('PUT', '/api/v1/sso/provider', {
      key: world.org.ownerKey,
      body: { issuer: world.idp.issuer, clientId: 'cadre-sso', groupsClaim: 'groups' },
    });
    expect(saved.status, saved.text).toBe(200);
    expect(discoveries()).toBe(before + 1);
    expect((await start()).status).toBe(302);
    expect(discoveries()).toBe(before + 1);
  });
});

describe('single sign-on starts', () => {
  it('have a budget of their own per client address: 429 with Retry-After past it', async () => {
    nextWindow();
    for (let i = 0; i < STARTS_PER_WINDOW; i += 1) expect((await start()).status).toBe(302);
    const refused = await world.server.request('GET', `/auth/sso/start?organization=${world.org.slug}`);
    expectApiError(refused, 429, 'rate_limited');
    expect(refused.text).toContain('single sign-on');
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
    // Only starts are bounded this tightly: the sign-in page's question still answers.
    const route = await world.server.request('GET', `/auth/sso/route?email=erin@${world.domain}`);
    expect(route.status, route.text).toBe(200);
    nextWindow();
    expect((await start()).status).toBe(302);
  });
});

describe('pending sign-ins', () => {
  it('are kept up to a fixed number per organization: a new start drops the oldest beyond it', async () => {
    nextWindow();
    const { db } = world.server.context.database;
    const inFiveMinutes = new Date(world.clock.now().getTime() + 5 * 60_000);
    // Starts from many addresses, each within its own budget, fill the organization's share.
    const filler = Array.from({ length: PENDING_SIGN_INS_PER_ORGANIZATION }, (_, i) => ({
      stateDigest: `filler-${i}`,
      organizationId: world.org.id,
      purpose: 'sign_in' as const,
      browserDigest: 'x',
      codeVerifier: 'x',
      nonce: 'x',
      returnTo: '/',
      startedByUserId: null,
      expiresAt: new Date(inFiveMinutes.getTime() + i),
    }));
    for (let i = 0; i < filler.length; i += 250) await db.insert(ssoSignIns).values(filler.slice(i, i + 250));

    expect((await start()).status).toBe(302);
    const mine = eq(ssoSignIns.organizationId, world.org.id);
    const [kept] = await db
      .select({ n: count(), newest: max(ssoSignIns.expiresAt) })
      .from(ssoSignIns)
      .where(mine);
    expect(kept?.n).toBe(PENDING_SIGN_INS_PER_ORGANIZATION);
    // The new start is among those kept (it expires last); the oldest filler is the one dropped.
    expect(kept?.newest?.getTime()).toBeGreaterThan(
      inFiveMinutes.getTime() + PENDING_SIGN_INS_PER_ORGANIZATION,
    );
    const oldest = await db
      .select()
      .from(ssoSignIns)
      .where(and(mine, eq(ssoSignIns.stateDigest, 'filler-0')));
    expect(oldest).toEqual([]);
  });
});
