import type { App } from '../../http/route-kit.js';
import type { CatalogReadEvents } from '../metrics/index.js';
import { registerCatalogCors, registerCatalogReadRoutes } from './mcp-catalog.routes.js';
import { createMcpCatalogService, type McpCatalogServiceDeps } from './mcp-catalog.service.js';
import { registerCatalogManagementRoutes } from './mcp-catalog-management.routes.js';
import { createServerUsers, type ExpertSkillUses } from './server-users.js';

/**
 * Each organization's MCP catalog (docs/mcp-registry.md): the MCP Registry's v0.1 read API in a face of its
 * own (`/mcp`), and publishing, status changes and the catalog's access in the management face.
 */
export function createMcpCatalogModule(
  deps: McpCatalogServiceDeps & { reads: CatalogReadEvents; experts: ExpertSkillUses },
) {
  const service = createMcpCatalogService(deps);
  const users = createServerUsers(deps);
  return {
    service,
    /** The catalog face's own set-up: CORS on every answer. */
    setUpFace: registerCatalogCors,
    /** The catalog face's routes (v0.1 reads and their preflight). */
    registerRoutes(app: App) {
      registerCatalogReadRoutes(app, service, deps.reads);
    },
    registerManagementRoutes(app: App) {
      registerCatalogManagementRoutes(app, service, users);
    },
  };
}
