import { z } from 'zod';
import { SUBSCRIPTION_STATUSES } from './billing.tables.js';
import { COUNTER_KEYS } from './plans.js';
import { BILLING_PROVIDERS } from './providers/index.js';
import { isReturnUrl, normalizedUrl } from './return-url.js';

const returnUrl = z
  .string()
  .max(2048)
  .refine(isReturnUrl, 'must be an absolute http or https URL without credentials')
  .transform(normalizedUrl);
const csrfToken = z
  .string()
  .max(256)
  .optional()
  .describe("The console session's csrfToken: required for console sessions, ignored for API keys");
const timestamp = z.iso.datetime().meta({ example: '2026-01-01T00:00:00.000Z' });

export const organizationParams = z.object({
  organizationIdOrSlug: z.string().min(1).max(64).describe('Organization id or slug'),
});

export const idempotencyHeaders = z.object({
  'idempotency-key': z
    .string()
    .optional()
    .describe(
      'Required: 1–255 printable ASCII characters; retries with the same key replay the first answer',
    ),
});

/** A counter's limit; null: none (an operator's catalogue may set none, CADRE_PLANS_FILE). */
const limit = z.number().int().nullable().describe('null: no limit');
const limits = z.object(
  Object.fromEntries(COUNTER_KEYS.map((key) => [key, limit])) as Record<
    (typeof COUNTER_KEYS)[number],
    typeof limit
  >,
);

const planSchema = z
  .object({
    key: z.string(),
    name: z.string(),
    description: z.string(),
    amount: z.number().int().describe('Price per interval in minor units of currency'),
    currency: z.string(),
    interval: z.enum(['month', 'year']),
    features: z.array(z.string()),
    limits,
  })
  .meta({ id: 'Plan' });

export const planListSchema = z.object({ plans: z.array(planSchema) }).meta({ id: 'PlanList' });

export const checkoutBody = z
  .object({ planKey: z.string().min(1).max(64), successUrl: returnUrl, cancelUrl: returnUrl, csrfToken })
  .strict()
  .meta({ id: 'CheckoutRequest' });

export const portalBody = z.object({ returnUrl, csrfToken }).strict().meta({ id: 'PortalRequest' });

export const checkoutSessionSchema = z
  .object({ sessionId: z.string(), url: z.url(), expiresAt: timestamp })
  .meta({ id: 'CheckoutSession' });

export const portalSessionSchema = z
  .object({ sessionId: z.string(), url: z.url() })
  .meta({ id: 'PortalSession' });

export const subscriptionSchema = z
  .object({
    organizationId: z.string(),
    planKey: z.string(),
    status: z.enum(SUBSCRIPTION_STATUSES),
    currentPeriodStart: timestamp.nullable(),
    currentPeriodEnd: timestamp.nullable(),
    cancelAtPeriodEnd: z.boolean(),
    provider: z.enum(BILLING_PROVIDERS.ids),
    testMode: z
      .boolean()
      .describe('true with the built-in local provider: plans are activated without any payment'),
  })
  .meta({ id: 'Subscription' });

export const usageSchema = z
  .object({
    organizationId: z.string(),
    periodStart: timestamp,
    periodEnd: timestamp,
    counters: z.array(z.object({ key: z.enum(COUNTER_KEYS), used: z.number().int(), limit })),
  })
  .meta({ id: 'Usage' });
