import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { parseEnv } from '../src/config/env.js';
import { billingSubscriptions } from '../src/modules/billing/billing.tables.js';
import {
  type BillingProviderDefinition,
  createBillingProviders,
} from '../src/modules/billing/providers/definition.js';
import { BILLING_PROVIDERS } from '../src/modules/billing/providers/index.js';
import { upsertSubscription } from '../src/modules/billing/subscriptions.repo.js';
import { createOrganization, type TestOrganization, uniqueSlug } from './support/fixtures.js';
import { startServer, type TestServer } from './support/server.js';

/**
 * A provider that exists only in this file: one definition, given to env parsing and to the app as their
 * `providers`. Nothing else in Cadre names it, which is what "pluggable" means.
 */
const invoiceProvider: BillingProviderDefinition<
  { CADRE_INVOICE_URL?: string | undefined },
  { url: string }
> = {
  id: 'invoice',
  testMode: false,
  endsAtPeriodEnd: false,
  env: z.object({ CADRE_INVOICE_URL: z.url().optional() }),
  settings(vars, { problem }) {
    if (!vars.CADRE_INVOICE_URL) {
      problem('CADRE_INVOICE_URL', 'required when CADRE_BILLING_PROVIDER=invoice');
      return undefined;
    }
    return { url: vars.CADRE_INVOICE_URL };
  },
  create(settings, { database, clock }) {
    return {
      provider: {
        name: 'invoice',
        portalNeedsCustomer: false,
        sellsPlan: (planKey) => planKey === 'team',
        async createCheckout(request) {
          return {
            sessionId: `inv_${request.idempotencyKey.slice(-8)}`,
            url: `${settings.url}/checkout/${request.organizationId}/${request.plan.key}`,
            expiresAt: new Date(clock.now().getTime() + 60_000),
          };
        },
        async createPortal(request) {
          return { sessionId: 'inv_portal', url: `${settings.url}/portal/${request.organizationId}` };
        },
      },
      // Its own page: the invoice was paid, the organization has the team plan.
      registerPages(app) {
        app.post('/billing/invoice/:organizationId/paid', {
          config: { auth: 'public' },
          schema: { hide: true, params: z.object({ organizationId: z.string() }) },
          handler: async (request, reply) => {
            const now = clock.now();
            await upsertSubscription(database.db, {
              organizationId: request.params.organizationId,
              provider: 'invoice',
              planKey: 'team',
              status: 'active',
              currentPeriodStart: now,
              currentPeriodEnd: new Date(now.getTime() + 30 * 86_400_000),
              cancelAtPeriodEnd: false,
              providerStateAt: now,
              updatedAt: now,
            });
            return reply.code(204).send();
          },
        });
      },
    };
  },
};

const providers = createBillingProviders([...BILLING_PROVIDERS.definitions, invoiceProvider]);
const INVOICE_ENV = { CADRE_BILLING_PROVIDER: 'invoice', CADRE_INVOICE_URL: 'https://pay.example.test' };

describe('a billing provider is one definition in a registry', () => {
  it('env parsing takes the ids, variables and checks from the registry it is given', () => {
    expect(parseEnv(INVOICE_ENV, providers).billing).toEqual({
      provider: 'invoice',
      usageFlushMs: 10_000,
      invoice: { url: 'https://pay.example.test' },
    });
    expect(() => parseEnv({ CADRE_BILLING_PROVIDER: 'invoice' }, providers)).toThrow(
      /CADRE_INVOICE_URL \(unset\): required when CADRE_BILLING_PROVIDER=invoice/,
    );
    expect(() => parseEnv({ ...INVOICE_ENV, CADRE_INVOICE_URL: 'not a url' }, providers)).toThrow(
      /CADRE_INVOICE_URL="not a url": /,
    );
    // The registered providers are unchanged by the test's registry: nothing global was touched.
    expect(() => parseEnv(INVOICE_ENV)).toThrow(
      'CADRE_BILLING_PROVIDER=invoice: expected one of local, stripe',
    );
    expect(parseEnv({}, providers).billing).toEqual({ provider: 'local', usageFlushMs: 10_000 });
  });

  describe('the billing module runs the chosen definition', () => {
    let server: TestServer;
    let org: TestOrganization;
    beforeAll(async () => {
      server = await startServer({
        billing: parseEnv(INVOICE_ENV, providers).billing,
        billingProviders: providers,
      });
      org = await createOrganization(server, 'team', uniqueSlug(), { planLimits: 'plan' });
    });
    afterAll(() => server.close());

    it('checks out through it, serves its pages and not another provider’s, and honours what it stores', async () => {
      const checkout = (planKey: string, key: string) =>
        server.request<{ data: { sessionId: string; url: string } }>(
          'POST',
          `/api/v1/organizations/${org.id}/billing/checkout`,
          {
            key: org.ownerKey,
            headers: { 'idempotency-key': key },
            body: {
              planKey,
              successUrl: 'https://app.example.com/ok',
              cancelUrl: 'https://app.example.com/no',
            },
          },
        );
      // The definition decides what it sells: plus is not priced there.
      expect((await checkout('plus', 'inv-1')).status).toBe(422);
      const res = await checkout('team', 'inv-2');
      expect(res.status).toBe(200);
      expect(res.body.data.url).toBe(`https://pay.example.test/checkout/${org.id}/team`);
      expect(res.body.data.sessionId).toMatch(/^inv_/);

      // Only the chosen provider's pages exist.
      expect((await server.request('GET', '/billing/local/checkout/lcs_x')).status).toBe(404);
      expect((await server.request('POST', `/billing/invoice/${org.id}/paid`)).status).toBe(204);

      // Its subscription is stored under its id and its plan's limits apply.
      const [row] = await server.context.database.db
        .select()
        .from(billingSubscriptions)
        .where(eq(billingSubscriptions.organizationId, org.id));
      expect(row).toMatchObject({ provider: 'invoice', planKey: 'team' });
      const usage = await server.request<{ data: { counters: Array<{ key: string; limit: number }> } }>(
        'GET',
        `/api/v1/organizations/${org.id}/billing/usage`,
        { key: org.ownerKey },
      );
      expect(usage.status).toBe(200);
      expect(usage.body.data.counters.find((counter) => counter.key === 'apiKeys')?.limit).toBe(200);
    });
  });
});
