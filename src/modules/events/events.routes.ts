import { requirePrincipal } from '../../http/auth.js';
import { type App, bearerSecurity, managementErrors } from '../../http/route-kit.js';
import { eventListSchema, listEventsQuery } from './events.schemas.js';
import type { EventsService } from './events.service.js';

const tags = ['Events'];

export function registerEventsRoutes(app: App, events: EventsService): void {
  app.get('/v1/events', {
    config: { auth: 'principal' },
    schema: {
      operationId: 'listEvents',
      summary:
        "The credential's organization's events, newest or oldest first (owners and admins: events:read)",
      tags,
      security: bearerSecurity,
      querystring: listEventsQuery,
      response: { 200: eventListSchema, ...managementErrors(401, 403, 422) },
    },
    handler: (request) => events.list(requirePrincipal(request), request.query),
  });
}
