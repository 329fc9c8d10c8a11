import { z } from 'zod';
import { requirePrincipal } from '../../http/auth.js';
import { type App, bearerSecurity, managementErrors } from '../../http/route-kit.js';
import { auditEventListSchema, listAuditEventsQuery } from './audit.schemas.js';
import type { AuditService } from './audit.service.js';

const tags = ['Audit'];

export function registerAuditRoutes(app: App, audit: AuditService): void {
  app.get('/v1/organizations/:org/audit-events', {
    config: { auth: 'principal' },
    schema: {
      operationId: 'listAuditEvents',
      summary: "The organization's audit events, newest first (owners and admins: audit:read)",
      tags,
      security: bearerSecurity,
      params: z.object({
        org: z.string().min(1).max(64).meta({ description: 'Organization id or slug' }),
      }),
      querystring: listAuditEventsQuery,
      response: { 200: auditEventListSchema, ...managementErrors(401, 403, 404, 422) },
    },
    handler: (request) => audit.list(requirePrincipal(request), request.params.org, request.query),
  });
}
