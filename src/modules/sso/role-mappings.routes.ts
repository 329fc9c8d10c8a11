import { requirePrincipal } from '../../http/auth.js';
import { type App, bearerSecurity, managementErrors } from '../../http/route-kit.js';
import { roleMappingsAnswer, roleMappingsSchema } from './role-mappings.schemas.js';
import type { RoleMappingsService } from './role-mappings.service.js';

const tags = ['Single sign-on'];
const config = { auth: 'principal' } as const;

/** The owner's group → role rules, in the management face (docs/sso.md, "Role mapping"). */
export function registerRoleMappingRoutes(app: App, mappings: RoleMappingsService): void {
  app.get('/v1/sso/role-mappings', {
    config,
    schema: {
      operationId: 'getSsoRoleMappings',
      summary: "The rules turning the identity provider's groups into roles (organization:manage)",
      tags,
      security: bearerSecurity,
      response: { 200: roleMappingsAnswer, ...managementErrors(401, 403) },
    },
    handler: async (request) => ({ data: await mappings.get(requirePrincipal(request)) }),
  });

  app.put('/v1/sso/role-mappings', {
    config,
    schema: {
      operationId: 'updateSsoRoleMappings',
      summary: 'Replace the group → role rules and the default role (organization:manage)',
      description:
        'Applied at each person’s next single sign-on (and by SCIM at once). Audited as sso.role_mappings_changed.',
      tags,
      security: bearerSecurity,
      body: roleMappingsSchema,
      response: { 200: roleMappingsAnswer, ...managementErrors(401, 403, 422) },
    },
    handler: async (request) => ({
      data: await mappings.replace(requirePrincipal(request), request.body),
    }),
  });
}
