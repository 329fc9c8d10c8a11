import { z } from 'zod';
import { paginationSchema } from '../../http/pagination.js';
import { RECORDED_EVENT_TYPES } from './event-types.js';

const eventTypeSchema = z.enum(RECORDED_EVENT_TYPES);

export const eventSchema = z
  .object({
    id: z.string().meta({ description: 'Stable: the same event keeps it in the API and in every delivery' }),
    type: eventTypeSchema,
    organizationId: z.string(),
    actor: z
      .object({
        kind: z.enum(['apiKey', 'session', 'admin', 'system', 'scim']),
        userId: z.string().nullable(),
        apiKeyId: z.string().nullable(),
      })
      .meta({
        description:
          'Who made the change: a member (key or console session), the operator, Cadre itself (system), or ' +
          'the organization’s SCIM provisioning (scim)',
      }),
    resource: z.object({ type: z.string(), id: z.string() }),
    data: z
      .record(z.string(), z.unknown())
      .meta({ description: 'The payload, whose shape the type defines (docs/webhooks.md); never a secret' }),
    createdAt: z.iso.datetime().meta({ example: '2026-01-01T00:00:00.000Z' }),
  })
  .meta({ id: 'Event' });
export type EventRecord = z.infer<typeof eventSchema>;

export const listEventsQuery = z
  .object({
    limit: z.coerce.number().int().min(1).max(100).default(20),
    cursor: z.string().min(1).max(512).optional(),
    type: z
      .string()
      .max(1000)
      .optional()
      .transform((value, context) => {
        if (value === undefined) return undefined;
        const types = value.split(',').map((part) => part.trim());
        for (const type of types) {
          if (!eventTypeSchema.safeParse(type).success) {
            context.addIssue({ code: 'custom', message: `unknown event type ${JSON.stringify(type)}` });
            return z.NEVER;
          }
        }
        return types;
      })
      .meta({
        description: 'Only events of these types (comma-separated)',
        example: 'expert.published,expert.deleted',
      }),
    order: z.enum(['newest', 'oldest']).default('newest').meta({
      description: 'newest first (default) or oldest first; keep the same order when following a cursor',
    }),
  })
  .strict();
export type ListEventsQuery = z.infer<typeof listEventsQuery>;

export const eventListSchema = z.object({ data: z.array(eventSchema), pagination: paginationSchema });
