import { Readable } from 'node:stream';
import { z } from 'zod';
import { requirePrincipal } from '../../http/auth.js';
import { type App, bearerSecurity, managementErrors } from '../../http/route-kit.js';
import {
  AUDIT_EXPORT_LIMIT,
  auditEventListSchema,
  exportAuditEventsQuery,
  listAuditEventsQuery,
} from './audit.schemas.js';
import type { AuditService } from './audit.service.js';
import { exportLines } from './audit-export.js';

const tags = ['Audit'];
const orgParams = z.object({
  org: z.string().min(1).max(64).meta({ description: 'Organization id or slug' }),
});

export function registerAuditRoutes(app: App, audit: AuditService): void {
  app.get('/v1/organizations/:org/audit-events', {
    config: { auth: 'principal' },
    schema: {
      operationId: 'listAuditEvents',
      summary: "The organization's audit events, newest first (owners and admins: audit:read)",
      tags,
      security: bearerSecurity,
      params: orgParams,
      querystring: listAuditEventsQuery,
      response: { 200: auditEventListSchema, ...managementErrors(401, 403, 404, 422) },
    },
    handler: (request) => audit.list(requirePrincipal(request), request.params.org, request.query),
  });

  app.get('/v1/organizations/:org/audit-events/export', {
    config: { auth: 'principal' },
    schema: {
      operationId: 'exportAuditEvents',
      summary: 'Download the filtered audit events as NDJSON or CSV, newest first (audit:read)',
      description:
        `Streamed; at most ${AUDIT_EXPORT_LIMIT} events (the newest of the range: narrow it with from and to for ` +
        'older ones). NDJSON: one event per line, as listed. CSV: a header row, metadata as JSON; a cell that ' +
        'begins with = + - @ is prefixed with an apostrophe so a spreadsheet never runs it.',
      tags,
      security: bearerSecurity,
      params: orgParams,
      querystring: exportAuditEventsQuery,
      response: {
        200: z.string().meta({
          description: 'application/x-ndjson or text/csv (an attachment), streamed',
        }),
        ...managementErrors(401, 403, 404, 422),
      },
    },
    handler: async (request, reply) => {
      const { format } = request.query;
      const { slug, events } = await audit.export(
        requirePrincipal(request),
        request.params.org,
        request.query,
      );
      const stream = Readable.from(exportLines(format, events()));
      return reply
        .type(format === 'csv' ? 'text/csv; charset=utf-8' : 'application/x-ndjson; charset=utf-8')
        .header('cache-control', 'no-store')
        .header(
          'content-disposition',
          `attachment; filename="audit-${slug}.${format === 'csv' ? 'csv' : 'ndjson'}"`,
        )
        .send(stream as unknown as string);
    },
  });
}
