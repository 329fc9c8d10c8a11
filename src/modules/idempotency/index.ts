// The idempotency module's public entry: what other modules and the composition (src/app.ts) may use. Everything
// else in this folder is private to it (docs/architecture.md, "Boundaries").

export type { Idempotency, StoredAnswer } from './idempotency.js';
export { canonicalJson, createIdempotency, idempotencyKeyOf, sendIdempotent } from './idempotency.js';
