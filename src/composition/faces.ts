// The faces (src/http/faces.ts) and the routes in each: every module registers its routes into the face
// they belong to. The order here is the order of /openapi.json's paths.
import { registerErrorHandling } from '../http/error-handler.js';
import { FACES, type Face, registerFace } from '../http/faces.js';
import { registerPathNames } from '../http/path-names.js';
import type { App } from '../http/route-kit.js';
import { createPathNameResolver } from '../modules/tenancy/index.js';
import type { AppDeps } from './app-deps.js';
import type { Foundations } from './foundations.js';
import type { Modules } from './modules.js';

export function registerFaces(app: App, deps: AppDeps, foundations: Foundations, modules: Modules) {
  const { database, health, tenancy } = foundations;
  const { system, metricsModule, billing, consoleModule, registry, mcpCatalog, apiKeys, oauth, audit } =
    modules;
  const { events, webhooks, organization, members, domains, scim, sso, sessions, cliLogins, tenancyAdmin } =
    modules;
  const errors = { onDatabaseUnavailable: () => health.reportDatabaseUnavailable() };
  const faceErrors = (face: Face) => (scope: App) => registerErrorHandling(scope, errors, face.defaults);
  registerFace(
    app,
    FACES.system,
    () => undefined,
    (scope) => {
      system.registerRoutes(scope);
      metricsModule.registerRoutes(scope);
      billing.registerPages(scope);
    },
  );
  if (consoleModule) {
    registerFace(app, FACES.console, () => undefined, consoleModule.registerRoutes);
  }
  registerFace(app, FACES.registry, faceErrors(FACES.registry), registry.registerRoutes);
  registerFace(app, FACES.perstack, faceErrors(FACES.perstack), registry.registerPerstackRoutes);
  registerFace(
    app,
    FACES.mcp,
    (scope) => {
      faceErrors(FACES.mcp)(scope);
      mcpCatalog.setUpFace(scope);
    },
    mcpCatalog.registerRoutes,
  );
  const pathNames = createPathNameResolver(database);
  const managementFace = (scope: App) => {
    faceErrors(FACES.management)(scope);
    registerPathNames(scope, { ...pathNames, ownOrganizationId: tenancy.ownOrganizationId });
  };
  registerFace(app, FACES.management, managementFace, (scope) => {
    apiKeys.registerRoutes(scope);
    billing.registerRoutes(scope);
    oauth.registerRoutes(scope);
    audit.registerRoutes(scope);
    events.registerRoutes(scope);
    webhooks.registerRoutes(scope);
    organization.registerRoutes(scope);
    members.registerRoutes(scope);
    registry.registerManagementRoutes(scope);
    mcpCatalog.registerManagementRoutes(scope);
    domains.registerRoutes(scope);
    scim.registerManagementRoutes(scope);
    sso.registerRoutes(scope);
  });
  registerFace(app, FACES.auth, faceErrors(FACES.auth), (scope) => {
    sessions.registerRoutes(scope);
    cliLogins.registerRoutes(scope);
    members.registerAuthRoutes(scope);
    sso.registerAuthRoutes(scope);
  });
  registerFace(app, FACES.scim, scim.setUpFace, scim.registerRoutes);
  // Without an admin token the admin face has no routes: every /admin path answers its 404.
  registerFace(app, FACES.admin, faceErrors(FACES.admin), (scope) => {
    if (!deps.adminToken) return;
    tenancyAdmin.registerAdminRoutes(scope);
    billing.registerAdminRoutes(scope);
    registry.registerAdminRoutes(scope);
    oauth.registerAdminRoutes(scope);
  });
}
