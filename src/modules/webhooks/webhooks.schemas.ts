import { z } from 'zod';
import { EVENT_TYPES } from '../events/event-types.js';

const eventTypes = z
  .array(z.enum(EVENT_TYPES))
  .min(1, 'at least one event type is required')
  .max(EVENT_TYPES.length)
  .refine((list) => new Set(list).size === list.length, 'event types must be unique')
  .meta({ description: 'The event types delivered to this endpoint (docs/webhooks.md)' });

/** An https URL without credentials; plain http and private targets are refused (docs/webhooks.md). */
const endpointUrl = z
  .url({ protocol: /^https$/, error: 'must be an https URL' })
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
