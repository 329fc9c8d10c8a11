// The billing module's public entry: what other modules and the composition (src/app.ts) may use. Everything
// else in this folder is private to it (docs/architecture.md, "Boundaries").

export { type BillingModule, type BillingOptions, createBillingModule } from './billing.module.js';
export type { PlanCheck, PlanLimits } from './plan-limits.js';
export type { CounterKey } from './plans.js';
export { createPlanCatalogue } from './plans.js';
export { describePlansFileProblem, readPlansFile, reloadPlansOnSighup } from './plans-file.js';
export { BILLING_PROVIDERS, type BillingProviders } from './providers/index.js';
export type { OwnedCounters, UsageSource, UsageSources } from './usage.js';
