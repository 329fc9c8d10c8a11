// The foundations every module may use, built before the modules: the change bus, the overload monitor,
// the rate-limit counters and the tenancy service (organizations, members, projects).
import { createChangeBus } from '../db/change-bus.js';
import { createHealthMonitor, DEFAULT_OVERLOAD } from '../http/overload.js';
import {
  createForeignResourceGuard,
  createOwnBudgets,
  DEFAULT_RATE_LIMITS,
} from '../http/rate-limit/rate-limit.js';
import { createMemoryStore } from '../http/rate-limit/store.js';
import type { App } from '../http/route-kit.js';
import { systemClock } from '../lib/clock.js';
import { revokeUserApiKeys } from '../modules/api-keys/index.js';
import { recordAuditEvent } from '../modules/audit/index.js';
import { seedPublishPolicy } from '../modules/registry-faces/index.js';
import { endUserSessions } from '../modules/sessions/index.js';
import { createTenancyService } from '../modules/tenancy/index.js';
import type { AppDeps } from './app-deps.js';

export type Foundations = ReturnType<typeof buildFoundations>;

export function buildFoundations(app: App, deps: AppDeps) {
  const clock = deps.clock ?? systemClock;
  const { database } = deps;
  const onError = (error: unknown) => app.log.error({ err: error }, 'background task failed');
  const publicUrl = () => deps.publicUrl ?? app.listeningOrigin;
  const consoleUrl = () => deps.consoleUrl ?? publicUrl();

  const bus = createChangeBus(database, onError);
  const overload = { ...DEFAULT_OVERLOAD, ...deps.overload };
  const health = createHealthMonitor({ database, options: overload, log: () => app.log });
  const rateLimitStore = deps.rateLimitStore ?? createMemoryStore();
  const rateLimitOptions = { ...DEFAULT_RATE_LIMITS, ...deps.rateLimits };
  // Budgets of their own for SCIM (per organization) and single sign-on starts (per address).
  const ownBudgets = createOwnBudgets({
    store: rateLimitStore,
    clock,
    options: rateLimitOptions,
    log: () => app.log,
  });
  const foreignResources = createForeignResourceGuard({
    store: rateLimitStore,
    clock,
    options: { limit: 20, windowMs: 60_000, ...deps.foreignResources },
    log: () => app.log,
  });
  const tenancy = createTenancyService({
    database,
    bus,
    clock,
    onOrganizationCreated: (tx, organization) =>
      seedPublishPolicy(tx, organization.id, deps.publishPolicyDefault, clock.now()),
    recordAudit: recordAuditEvent,
    credentials: { endSessions: endUserSessions, revokeApiKeys: revokeUserApiKeys },
  });
  return {
    database,
    clock,
    onError,
    publicUrl,
    consoleUrl,
    bus,
    overload,
    health,
    rateLimitStore,
    rateLimitOptions,
    ownBudgets,
    foreignResources,
    tenancy,
  };
}
