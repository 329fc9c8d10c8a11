// Every module's tables in one place: test/schema-drift.test.ts compares them with the migrations. A new module's
// *.tables.ts gets its line here. (The database client knows no tables: src/db sits below the modules.)

export * from './modules/api-keys/api-keys.tables.js';
export * from './modules/audit/audit.tables.js';
export * from './modules/billing/billing.tables.js';
export * from './modules/cli-logins/cli-logins.tables.js';
export * from './modules/domains/domains.tables.js';
export * from './modules/events/events.tables.js';
export * from './modules/idempotency/idempotency.tables.js';
export * from './modules/mcp-catalog/mcp-catalog.tables.js';
export * from './modules/members/invitations.tables.js';
export * from './modules/oauth/oauth.tables.js';
export * from './modules/oauth-flow/oauth-flow.tables.js';
export * from './modules/registry/registry.tables.js';
export * from './modules/scim/scim.tables.js';
export * from './modules/sessions/sessions.tables.js';
export * from './modules/sso/role-mappings.tables.js';
export * from './modules/sso/sso.tables.js';
export * from './modules/supply-chain/policy.tables.js';
export * from './modules/tenancy/tenancy.tables.js';
export * from './modules/webhooks/webhooks.tables.js';
