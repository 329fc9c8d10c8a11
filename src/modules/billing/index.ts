// The billing module's public entry: what other modules and the composition (src/app.ts) may use. Everything
// else in this folder is private to it (docs/architecture.md, "Boundaries").

export type { PlanCheck, PlanLimits } from './plan-limits.js';
export type { CounterKey } from './plans.js';
export type { OwnedCounters, UsageSource, UsageSources } from './usage.js';
