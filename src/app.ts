// The composition root: buildApp makes one Cadre app from its dependencies, in steps of src/composition/.
// The order is behaviour: hooks run in the order they are added, and /openapi.json lists paths in the order
// their routes are registered.
import type { AppDeps } from './composition/app-deps.js';
import { type AppContext, appContext } from './composition/context.js';
import { registerFaces } from './composition/faces.js';
import { buildFoundations } from './composition/foundations.js';
import { startBackgroundWork } from './composition/lifecycle.js';
import { buildModules } from './composition/modules.js';
import { registerPipeline } from './composition/pipeline.js';
import { createServer } from './composition/server.js';
import type { App } from './http/route-kit.js';

export type { AppContext, AppDeps };

export async function buildApp(deps: AppDeps): Promise<{ app: App; context: AppContext }> {
  const server = createServer(deps);
  const { app } = server;
  // The change bus, overload monitor, rate-limit counters and tenancy service every module may use.
  const foundations = buildFoundations(app, deps);
  const modules = buildModules(app, deps, foundations);
  const context = appContext(foundations, modules);
  await startBackgroundWork(app, deps, foundations, modules);
  // The request pipeline before the faces, so every route runs it.
  await registerPipeline(server, deps, foundations, modules);
  registerFaces(app, deps, foundations, modules);
  await app.ready();
  return { app, context };
}
