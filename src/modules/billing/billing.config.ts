import type { Env } from '../../config/env.js';
import type { BillingOptions } from './billing.module.js';

/** Billing options from the parsed environment (docs/billing.md lists the variables). */
export function billingOptions(env: Env): BillingOptions {
  const common = { usageFlushMs: env.CADRE_USAGE_FLUSH_MS };
  if (env.CADRE_BILLING_PROVIDER === 'local' || !env.CADRE_STRIPE_SECRET_KEY) {
    return { ...common, provider: 'local' };
  }
  return {
    ...common,
    provider: 'stripe',
    stripe: {
      secretKey: env.CADRE_STRIPE_SECRET_KEY,
      webhookSecret: env.CADRE_STRIPE_WEBHOOK_SECRET,
      prices: env.CADRE_STRIPE_PRICES,
      host: env.CADRE_STRIPE_API_HOST,
      port: env.CADRE_STRIPE_API_PORT,
      protocol: env.CADRE_STRIPE_API_PROTOCOL,
      webhookToleranceSeconds: env.CADRE_STRIPE_WEBHOOK_TOLERANCE_SECONDS,
    },
  };
}
