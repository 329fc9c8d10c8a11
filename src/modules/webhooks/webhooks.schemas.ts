import { z } from 'zod';
import { paginationSchema } from '../../http/pagination.js';
import { EVENT_TYPES, RECORDED_EVENT_TYPES } from '../events/index.js';

const eventTypes = z
  .array(z.enum(EVENT_TYPES))
  .min(1, 'at least one event type is required')
  .max(EVENT_TYPES.length)
  .refine((list) => new Set(list).size === list.length, 'event types must be unique')
  .meta({ description: 'The event types delivered to this endpoint (docs/webhooks.md)' });

/**
 * An http(s) URL without credentials. Plain http is accepted here and refused by the service unless the host
 * is one the operator allows (CADRE_WEBHOOKS_ALLOWED_PRIVATE_HOSTS, docs/webhooks.md, "Safe targets").
 */
const endpointUrl = z
  .url({ protocol: /^https?$/, error: 'must be an https URL' })
  .max(2048)
  .refine((value) => {
    // Runs after a failed url check too (zod goes on checking): a value that is no URL is that check's issue.
    if (!URL.canParse(value)) return true;
    const url = new URL(value);
    return url.username === '' && url.password === '';
  }, 'must not hold credentials')
  .meta({ example: 'https://ci.example.com/cadre-events' });

export const webhookEndpointSchema = z
  .object({
    id: z.string(),
    url: z.string(),
    description: z.string(),
    eventTypes: z.array(z.enum(EVENT_TYPES)),
    enabled: z.boolean(),
    disabledReason: z.string().nullable().meta({ description: 'Why Cadre disabled it, when it did' }),
    failingSince: z.iso.datetime().nullable().meta({
      description:
        'Since when every delivery attempt to it has failed (three days of it disable it); null while its last attempt succeeded',
    }),
    secretRotation: z
      .object({ previousSecretExpiresAt: z.iso.datetime() })
      .nullable()
      .meta({ description: 'While the previous secret still signs alongside the current one' }),
    createdAt: z.iso.datetime(),
    updatedAt: z.iso.datetime(),
  })
  .meta({ id: 'WebhookEndpoint' });
export type WebhookEndpointRecord = z.infer<typeof webhookEndpointSchema>;

export const endpointWithSecretSchema = z.object({
  endpoint: webhookEndpointSchema,
  secret: z
    .string()
    .meta({ description: 'The signing secret (whsec_…): shown once, keep it', example: 'whsec_…' }),
});

export const createEndpointBody = z
  .object({
    url: endpointUrl,
    eventTypes,
    description: z.string().max(500).default(''),
    enabled: z.boolean().default(true),
  })
  .strict();
export type CreateEndpointInput = z.infer<typeof createEndpointBody>;

export const updateEndpointBody = z
  .object({
    url: endpointUrl.optional(),
    eventTypes: eventTypes.optional(),
    description: z.string().max(500).optional(),
    enabled: z.boolean().optional(),
  })
  .strict()
  .refine((body) => Object.keys(body).length > 0, 'nothing to change');
export type UpdateEndpointInput = z.infer<typeof updateEndpointBody>;

export const endpointParams = z.object({ webhookEndpointId: z.string().min(1).max(64) });
export const endpointListSchema = z.object({ data: z.array(webhookEndpointSchema) });

const attemptSchema = z
  .object({
    at: z.iso.datetime(),
    statusCode: z
      .number()
      .int()
      .nullable()
      .meta({ description: "The endpoint's HTTP status; null when none came" }),
    error: z
      .string()
      .nullable()
      .meta({ description: 'Why the attempt failed without a usable answer (timeout, refused target…)' }),
    latencyMs: z.number().int(),
    responseExcerpt: z
      .string()
      .nullable()
      .meta({ description: "The answer's first bytes (at most 1 KiB), as text" }),
  })
  .meta({ id: 'WebhookDeliveryAttempt' });

export const deliverySchema = z
  .object({
    id: z.string().meta({ description: 'The `webhook-id` header: the same on every retry and resend' }),
    eventId: z.string(),
    eventType: z.enum(RECORDED_EVENT_TYPES),
    status: z.enum(['pending', 'succeeded', 'failed']).meta({
      description: 'pending (not yet delivered; retried on schedule), succeeded (a 2xx), failed (given up)',
    }),
    nextAttemptAt: z.iso.datetime().nullable().meta({ description: 'When it is tried next, while pending' }),
    attempts: z.array(attemptSchema).meta({ description: 'Every attempt, oldest first' }),
    createdAt: z.iso.datetime(),
    completedAt: z.iso.datetime().nullable(),
  })
  .meta({ id: 'WebhookDelivery' });
export type DeliveryRecord = z.infer<typeof deliverySchema>;

export const deliveryListQuery = z
  .object({
    limit: z.coerce.number().int().min(1).max(100).default(20),
    cursor: z.string().min(1).max(512).optional(),
    status: z.enum(['pending', 'succeeded', 'failed']).optional(),
  })
  .strict();
export type DeliveryListQuery = z.infer<typeof deliveryListQuery>;

export const deliveryListSchema = z.object({ data: z.array(deliverySchema), pagination: paginationSchema });

export const resendBody = z
  .object({
    eventId: z.string().min(1).max(64).meta({ description: "An event of the endpoint's organization" }),
  })
  .strict();
