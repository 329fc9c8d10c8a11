// The modules (src/modules/*/<name>.module.ts), each built from what it uses, in dependency order: a module
// is built after every module whose services it receives.

import type { App } from '../http/route-kit.js';
import { NO_ALLOWANCE } from '../lib/outbound/address-policy.js';
import { activeApiKeysSource, createApiKeysModule } from '../modules/api-keys/index.js';
import { createAuditModule } from '../modules/audit/index.js';
import { createBillingModule } from '../modules/billing/index.js';
import { createCliLoginsModule } from '../modules/cli-logins/index.js';
import { createConsoleModule } from '../modules/console/index.js';
import { createDomainsModule } from '../modules/domains/index.js';
import { createEventsModule } from '../modules/events/index.js';
import { createMcpCatalogModule } from '../modules/mcp-catalog/index.js';
import { createMembersModule } from '../modules/members/index.js';
import { createMetricsModule } from '../modules/metrics/index.js';
import { connectionsSource } from '../modules/oauth/index.js';
import { createOAuthModule } from '../modules/oauth-flow/index.js';
import { createOrganizationModule } from '../modules/organization/index.js';
import { expertVersionsSource } from '../modules/registry/index.js';
import { createRegistryModule } from '../modules/registry-faces/index.js';
import { createScimModule } from '../modules/scim/index.js';
import { createSessionsModule } from '../modules/sessions/index.js';
import { createSsoEnforcement, createSsoModule } from '../modules/sso/index.js';
import { policies } from '../modules/supply-chain/index.js';
import { createSystemModule } from '../modules/system/index.js';
import { createTenancyAdminModule } from '../modules/tenancy-admin/index.js';
import {
  createSigningSecretRotation,
  createWebhooksModule,
  queueLagSeconds,
} from '../modules/webhooks/index.js';
import type { AppDeps } from './app-deps.js';
import { auditRecordNames } from './audit-names.js';
import type { Foundations } from './foundations.js';
import { VERSION } from './server.js';

export type Modules = ReturnType<typeof buildModules>;

export function buildModules(app: App, deps: AppDeps, foundations: Foundations) {
  const { database, clock, bus, tenancy, health, rateLimitStore, foreignResources, ownBudgets } = foundations;
  const { onError, publicUrl, consoleUrl } = foundations;

  const { metrics, ...metricsModule } = createMetricsModule({
    enabled: deps.metrics?.enabled !== false,
    token: deps.metrics?.token,
    separatePort: deps.metrics?.separatePort ?? false,
    version: VERSION,
    database,
    eventLoopDelayMs: () => health.eventLoopDelayMs(),
    processMetrics: deps.metrics?.processMetrics ?? false,
    ...(rateLimitStore.circuit ? { rateLimitCircuit: () => rateLimitStore.circuit?.() ?? 'closed' } : {}),
  });
  const system = createSystemModule({ database, health });
  const consoleModule = deps.consoleDir === false ? undefined : createConsoleModule({ dir: deps.consoleDir });
  const billing = createBillingModule({
    database,
    clock,
    tenancy,
    onError,
    options: deps.billing ?? {},
    providers: deps.billingProviders,
    providerCall: metrics.providerCall,
    publicUrl,
    counters: {
      expertVersions: expertVersionsSource(database),
      apiKeys: activeApiKeysSource(database, clock),
      connections: connectionsSource(database),
    },
  });
  // Writes that add to a plan's counter check it in their transaction; billing owns the plans.
  const planLimits = billing.planLimits;
  const apiKeys = createApiKeysModule({
    database,
    bus,
    clock,
    flushIntervalMs: deps.lastUsedFlushMs ?? 5_000,
    onError,
    cacheEvents: metrics.apiKeyCache,
    foreignResources,
    planLimits,
  });
  const domains = createDomainsModule({
    database,
    clock,
    ...deps.domains,
    onError: (error) => app.log.warn({ err: error }, 'the verified domains re-check failed'),
  });
  // Before sessions: password sign-in asks it whether single sign-on is enforced for the account's domain.
  const ssoEnforcement = createSsoEnforcement({ database, clock, domains: domains.service });
  const secureCookie = (deps.publicUrl ?? (deps.tls ? 'https:' : 'http:')).startsWith('https:');
  const sessions = createSessionsModule({
    passwordPolicy: ssoEnforcement.passwordPolicy,
    database,
    bootstrapFile: deps.bootstrapFile,
    clock,
    loginLimits: deps.loginLimits,
    store: rateLimitStore,
    ttlMs: deps.sessionTtlMs ?? 12 * 3_600_000,
    passwords: tenancy,
    // Without CADRE_PUBLIC_URL, browsers reach Cadre as it listens: over https when it serves TLS itself.
    secureCookie,
  });
  const tenancyAdmin = createTenancyAdminModule({
    tenancy,
    apiKeys: apiKeys.service,
    sessions: sessions.service,
  });
  const cliLogins = createCliLoginsModule({
    database,
    clock,
    apiKeys: apiKeys.service,
    tenancy,
    consoleUrl,
  });
  const mcpCatalog = createMcpCatalogModule({
    database,
    bus,
    clock,
    tenancy,
    publicUrl,
    reads: metrics.mcpCatalogReads,
    // The organization's publish policy holds versions that widen access for approval, Experts' and servers'.
    approvalRequired: async (executor, organizationId) =>
      (await policies.readPolicy(executor, organizationId)).policy.approvalRequiredForWidening,
    // The registry is made after the catalog (it checks skills against it): reached when a page asks.
    experts: {
      ofOrganization: (organizationId, texts) => registry.catalogUsers.ofOrganization(organizationId, texts),
      ofExpert: (organizationId, name, version) =>
        registry.catalogUsers.ofExpert(organizationId, name, version),
    },
  });
  const registry = createRegistryModule({
    planLimits,
    database,
    bus,
    clock,
    tenancy,
    cacheEntries: deps.registryCacheEntries ?? 10_000,
    cacheEvents: metrics.registryCache,
    baseSkillNames: deps.baseSkillNames,
    catalog: mcpCatalog.service,
  });
  const sso = createSsoModule({
    database,
    clock,
    keyRing: deps.keyRing,
    network: { allowedPrivateHosts: NO_ALLOWANCE, ...deps.sso },
    tenancy,
    sessions: sessions.service,
    domains: domains.service,
    publicUrl,
    consoleUrl,
    sessionCookie: { path: '/', httpOnly: true, sameSite: 'Lax', secure: secureCookie },
    rateLimit: ownBudgets,
  });
  const oauth = createOAuthModule({
    database,
    clock,
    tenancy,
    keyRing: deps.keyRing,
    otherSecrets: {
      webhookEndpoints: createSigningSecretRotation(database),
      ssoProviders: sso.clientSecrets,
    },
    http: deps.oauthHttp,
    providerCall: metrics.providerCall,
    publicUrl,
    consoleUrl,
    allowedReturnOrigins: deps.allowedReturnOrigins ?? [],
    foreignResources,
    planLimits,
  });
  const members = createMembersModule({
    database,
    bus,
    clock,
    tenancy,
    consoleUrl,
    smtp: deps.smtp,
    guesses: sessions.guessBudget,
    invitationPolicy: ssoEnforcement,
    onMailError: (error) => app.log.warn({ err: error }, 'an invitation email could not be sent'),
  });
  const audit = createAuditModule({ database, tenancy, names: auditRecordNames(database) });
  const events = createEventsModule({
    database,
    clock,
    entitlement: billing.planLimits.entitlement,
    usage: billing.usage,
    onError: (error) =>
      app.log.warn({ err: error }, 'the expiring-key and plan-threshold events check failed'),
  });
  const webhooks = createWebhooksModule({
    database,
    clock,
    keyRing: deps.keyRing,
    ...deps.webhooks,
    events: metrics.webhookDeliveries,
    onError: (error) => app.log.warn({ err: error }, 'a webhook delivery could not be recorded'),
  });
  metrics.webhookQueueLag(() => queueLagSeconds(database.db, clock.now()));
  const organization = createOrganizationModule({
    database,
    bus,
    clock,
    tenancy,
    integrations: oauth.integrations,
    foreignResources,
    authenticator: apiKeys.authenticator,
    disconnectRow: oauth.disconnectRow,
    sessions: sessions.service,
  });

  const scim = createScimModule({
    database,
    clock,
    tenancy,
    members: members.service,
    domains: domains.service,
    roles: sso.roleMappings,
    publicUrl,
    onDatabaseUnavailable: () => health.reportDatabaseUnavailable(),
    rateLimit: ownBudgets,
  });

  return {
    metrics,
    metricsModule,
    system,
    consoleModule,
    billing,
    apiKeys,
    domains,
    sessions,
    tenancyAdmin,
    cliLogins,
    mcpCatalog,
    registry,
    sso,
    oauth,
    members,
    audit,
    events,
    webhooks,
    organization,
    scim,
  };
}
