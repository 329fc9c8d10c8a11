import Stripe from 'stripe';
import { z } from 'zod';
import { registerStripeWebhookRoute } from '../stripe-webhook.routes.js';
import { createStripeWebhookHandler } from '../stripe-webhooks.js';
import type { BillingProviderDefinition } from './definition.js';
import type { BillingProvider, CheckoutSession, PortalSession } from './provider.js';
import { ProviderUnavailableError } from './provider.js';

interface StripeSettings {
  secretKey: string;
  webhookSecret: string | undefined;
  /** Plan key → Stripe price id (CADRE_STRIPE_PRICES). Plans without a price cannot be bought. */
  prices: Record<string, string>;
  /** Overrides of the API address (a stand-in in tests, a proxy in production). */
  host?: string | undefined;
  port?: number | undefined;
  protocol?: 'http' | 'https' | undefined;
  /** Seconds a webhook signature stays valid (Stripe's default: 300). */
  webhookToleranceSeconds?: number;
}

function createStripeClient(settings: StripeSettings): Stripe {
  return new Stripe(settings.secretKey, {
    ...(settings.host ? { host: settings.host } : {}),
    ...(settings.port ? { port: settings.port } : {}),
    ...(settings.protocol ? { protocol: settings.protocol } : {}),
    maxNetworkRetries: 2,
    timeout: 20_000,
    telemetry: false,
    appInfo: { name: 'cadre' },
  });
}

/** Anything the SDK throws becomes "provider unavailable", keeping the SDK's message for the logs. */
async function call<T>(what: string, work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    throw new ProviderUnavailableError(`Stripe ${what} failed: ${(error as Error).message}`, {
      cause: error,
    });
  }
}

/**
 * Stripe Checkout (mode `subscription`) and the Stripe customer portal. Every call carries Stripe's own
 * Idempotency-Key, derived from the client's key and request, so a retried or taken-over request never
 * creates a second session. The organization id travels as `client_reference_id` and metadata, which is
 * how webhooks find the organization again.
 */
function createStripeProvider(stripe: Stripe, settings: StripeSettings): BillingProvider {
  return {
    name: 'stripe',
    portalNeedsCustomer: true,
    sellsPlan: (planKey) => Boolean(settings.prices[planKey]),

    async createCheckout(request): Promise<CheckoutSession> {
      const price = settings.prices[request.plan.key];
      if (!price) throw new ProviderUnavailableError(`no Stripe price for plan ${request.plan.key}`);
      const metadata = { organizationId: request.organizationId, planKey: request.plan.key };
      const session = await call('checkout.sessions.create', () =>
        stripe.checkout.sessions.create(
          {
            mode: 'subscription',
            line_items: [{ price, quantity: 1 }],
            success_url: request.successUrl,
            cancel_url: request.cancelUrl,
            client_reference_id: request.organizationId,
            ...(request.customerId
              ? { customer: request.customerId }
              : { customer_email: request.userEmail }),
            metadata,
            subscription_data: { metadata },
          },
          { idempotencyKey: request.idempotencyKey },
        ),
      );
      if (!session.url)
        throw new ProviderUnavailableError('Stripe returned a checkout session without a url');
      return { sessionId: session.id, url: session.url, expiresAt: new Date(session.expires_at * 1000) };
    },

    async createPortal(request): Promise<PortalSession> {
      if (!request.customerId) throw new ProviderUnavailableError('no Stripe customer for this organization');
      const customer = request.customerId;
      const session = await call('billingPortal.sessions.create', () =>
        stripe.billingPortal.sessions.create(
          { customer, return_url: request.returnUrl },
          { idempotencyKey: request.idempotencyKey },
        ),
      );
      return { sessionId: session.id, url: session.url };
    },
  };
}

const positiveInt = z.coerce.number().int().positive();

const stripeEnv = z.object({
  CADRE_STRIPE_SECRET_KEY: z.string().min(1).optional(),
  CADRE_STRIPE_WEBHOOK_SECRET: z.string().min(1).optional(),
  /** `plus=price_123,team=price_456`: plan key → Stripe price id. */
  CADRE_STRIPE_PRICES: z
    .string()
    .transform((value) =>
      value
        .split(',')
        .map((item) => item.trim())
        .filter(Boolean),
    )
    .pipe(
      z
        .array(z.string().regex(/^[a-z0-9_-]+=\S+$/, 'use planKey=price_id'))
        .transform((pairs) =>
          Object.fromEntries(pairs.map((pair) => pair.split('=', 2) as [string, string])),
        ),
    )
    .default({}),
  CADRE_STRIPE_WEBHOOK_TOLERANCE_SECONDS: positiveInt.default(300),
  // Where the SDK sends its API requests (a proxy, or a stand-in in tests); default api.stripe.com:443.
  CADRE_STRIPE_API_HOST: z.string().min(1).optional(),
  CADRE_STRIPE_API_PORT: z.coerce.number().int().min(1).max(65535).optional(),
  CADRE_STRIPE_API_PROTOCOL: z.enum(['http', 'https']).optional(),
});

/** Stripe Checkout and customer portal; the subscription projection follows its webhooks. */
export const stripeBillingProvider: BillingProviderDefinition<z.infer<typeof stripeEnv>, StripeSettings> = {
  id: 'stripe',
  testMode: false,
  endsAtPeriodEnd: false,
  env: stripeEnv,
  settings(vars, { problem }) {
    if (!vars.CADRE_STRIPE_SECRET_KEY) {
      problem('CADRE_STRIPE_SECRET_KEY', 'required when CADRE_BILLING_PROVIDER=stripe');
      return undefined;
    }
    return {
      secretKey: vars.CADRE_STRIPE_SECRET_KEY,
      webhookSecret: vars.CADRE_STRIPE_WEBHOOK_SECRET,
      prices: vars.CADRE_STRIPE_PRICES,
      host: vars.CADRE_STRIPE_API_HOST,
      port: vars.CADRE_STRIPE_API_PORT,
      protocol: vars.CADRE_STRIPE_API_PROTOCOL,
      webhookToleranceSeconds: vars.CADRE_STRIPE_WEBHOOK_TOLERANCE_SECONDS,
    };
  },
  create(settings, { database, clock }) {
    const stripe = createStripeClient(settings);
    // Without a signing secret no delivery could be verified: the webhook route is not served.
    const webhooks = settings.webhookSecret
      ? createStripeWebhookHandler({
          stripe,
          database,
          clock,
          secret: settings.webhookSecret,
          toleranceSeconds: settings.webhookToleranceSeconds ?? 300,
          prices: settings.prices,
        })
      : undefined;
    return {
      provider: createStripeProvider(stripe, settings),
      registerRoutes(app) {
        if (webhooks) registerStripeWebhookRoute(app, webhooks);
      },
    };
  },
};
