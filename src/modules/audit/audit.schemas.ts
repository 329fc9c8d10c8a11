import { z } from 'zod';
import { paginationSchema } from '../../http/pagination.js';

const auditEventSchema = z
  .object({
    id: z.string(),
    action: z.string().meta({ example: 'connection.deleted' }),
    actor: z
      .object({
        kind: z.enum(['apiKey', 'session', 'admin', 'system', 'scim']),
        userId: z.string().nullable(),
        apiKeyId: z.string().nullable(),
        name: z.string().nullable().meta({
          description: "The member's name, or their email when they have none; null for the operator",
        }),
      })
      .meta({
        description:
          'apiKey or session: a member (userId) through an API key (apiKeyId) or a console session; admin: ' +
          "the operator; system: Cadre itself (a payment provider's report, a re-check, an invitation accepted; " +
          'userId: the person it was for, if known); scim: the organization’s SCIM provisioning (its identity ' +
          'provider)',
      }),
    target: z.object({
      type: z.string(),
      id: z.string(),
      name: z
        .string()
        .nullable()
        .meta({
          description:
            'The target by its name: its current name, or the one the event recorded (a deleted project, an ' +
            "invitation's email, a connection's provider and account); null when Cadre knows none",
        }),
    }),
    metadata: z
      .record(z.string(), z.unknown())
      .nullable()
      .meta({ description: 'Details of the change; their shape depends on the action.' }),
    references: z
      .array(
        z.object({
          field: z
            .string()
            .meta({ description: 'The field of `metadata` holding the id', example: 'invitedByUserId' }),
          type: z.enum(['user', 'apiKey', 'expert', 'project', 'environment', 'invitation', 'connection']),
          id: z.string(),
          name: z
            .string()
            .nullable()
            .meta({
              description:
                "Its name now (a person's name or email, a key's, an Expert's key, a project's, an invitation's " +
                "email, a connection's provider and account); null when it no longer exists",
            }),
        }),
      )
      .meta({
        description: 'The people, keys, Experts, projects and others the details refer to by id, named',
      }),
    createdAt: z.iso.datetime().meta({ example: '2026-01-01T00:00:00.000Z' }),
  })
  .meta({ id: 'AuditEvent' });
export type AuditEventRecord = z.infer<typeof auditEventSchema>;

const filters = {
  action: z.string().min(1).max(100).optional().meta({ description: 'Only events of this action' }),
  actor: z
    .string()
    .min(1)
    .max(64)
    .optional()
    .meta({ description: 'Only events performed by this user id or through this API key id' }),
  from: z.iso
    .datetime({ offset: true })
    .optional()
    .meta({ description: 'Only events at or after this instant (ISO 8601)' }),
  to: z.iso
    .datetime({ offset: true })
    .optional()
    .meta({ description: 'Only events before this instant (ISO 8601)' }),
};
const fromBeforeTo = (query: { from?: string | undefined; to?: string | undefined }) =>
  !query.from || !query.to || new Date(query.from) < new Date(query.to);

export const listAuditEventsQuery = z
  .object({
    limit: z.coerce.number().int().min(1).max(100).default(20),
    cursor: z.string().min(1).max(512).optional(),
    ...filters,
  })
  .strict()
  .refine(fromBeforeTo, { message: '`from` must be before `to`', path: ['from'] });
export type ListAuditEventsQuery = z.infer<typeof listAuditEventsQuery>;

export const auditEventListSchema = z.object({
  data: z.array(auditEventSchema),
  pagination: paginationSchema,
});

/** The most events one export answers: the newest of the filtered range (docs/organization-api.md). */
export const AUDIT_EXPORT_LIMIT = 50_000;

export const exportAuditEventsQuery = z
  .object({
    format: z.enum(['ndjson', 'csv']).meta({ description: 'ndjson: one event (as listed) per line; csv' }),
    ...filters,
  })
  .strict()
  .refine(fromBeforeTo, { message: '`from` must be before `to`', path: ['from'] });
export type ExportAuditEventsQuery = z.infer<typeof exportAuditEventsQuery>;
