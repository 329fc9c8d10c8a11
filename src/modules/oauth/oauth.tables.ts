import { boolean, integer, jsonb, pgTable, text, unique } from 'drizzle-orm/pg-core';
import { at } from '../../db/columns.js';
import { environments, organizationIdColumn, projects } from '../tenancy/index.js';

/** Where a version's provider lives, resolved once when the version is created and then never changed. */
export interface ProviderEndpoints {
  issuer: string | null;
  authorizationEndpoint: string;
  tokenEndpoint: string;
  userinfoEndpoint: string | null;
  /** How the client authenticates at the token endpoint. */
  tokenEndpointAuth: 'client_secret_basic' | 'client_secret_post';
  /** RFC 9207: the provider sends `iss` with its authorization responses, so its absence is an error. */
  issParameterSupported: boolean;
  /**
   * RFC 7009 token revocation, used on disconnect; from discovery. Absent on versions created before Cadre
   * read it: their connections are deleted without revoking (docs/organization-api.md).
   */
  revocationEndpoint?: string | null;
}

export const integrations = pgTable(
  'integrations',
  {
    id: text('id').primaryKey(),
    organizationId: organizationIdColumn(),
    presetKey: text('preset_key').notNull(),
    /** The version new flows use (SQL declares the foreign key; the cycle is kept out of drizzle's types). */
    currentVersionId: text('current_version_id'),
    createdAt: at('created_at').notNull().defaultNow(),
    updatedAt: at('updated_at').notNull().defaultNow(),
  },
  (table) => [unique().on(table.organizationId, table.presetKey)],
);

/** Immutable: every change to an integration appends a version; flows pin the one they started with. */
export const integrationVersions = pgTable(
  'integration_versions',
  {
    id: text('id').primaryKey(),
    integrationId: text('integration_id')
      .notNull()
      .references(() => integrations.id),
    organizationId: organizationIdColumn(),
    presetKey: text('preset_key').notNull(),
    number: integer('number').notNull(),
    clientId: text('client_id').notNull(),
    clientSecretCiphertext: text('client_secret_ciphertext').notNull(),
    scopes: jsonb('scopes').$type<string[]>().notNull(),
    provider: jsonb('provider').$type<ProviderEndpoints>().notNull(),
    verified: boolean('verified').notNull(),
    createdAt: at('created_at').notNull().defaultNow(),
  },
  (table) => [unique().on(table.integrationId, table.number)],
);

export const connections = pgTable(
  'connections',
  {
    id: text('id').primaryKey(),
    organizationId: organizationIdColumn(),
    projectId: text('project_id')
      .notNull()
      .references(() => projects.id),
    environmentId: text('environment_id')
      .notNull()
      .references(() => environments.id),
    presetKey: text('preset_key').notNull(),
    integrationVersionId: text('integration_version_id')
      .notNull()
      .references(() => integrationVersions.id),
    accountId: text('account_id').notNull(),
    accountLabel: text('account_label'),
    scopes: jsonb('scopes').$type<string[]>().notNull(),
    status: text('status', { enum: ['active', 'needs_reauth'] }).notNull(),
    tokenType: text('token_type').notNull(),
    accessTokenCiphertext: text('access_token_ciphertext').notNull(),
    refreshTokenCiphertext: text('refresh_token_ciphertext'),
    expiresAt: at('expires_at'),
    lastError: text('last_error'),
    refreshFailures: integer('refresh_failures').notNull().default(0),
    /** While set and in the future, refreshing is backing off after a failure. */
    nextRefreshAt: at('next_refresh_at'),
    createdAt: at('created_at').notNull().defaultNow(),
    updatedAt: at('updated_at').notNull().defaultNow(),
  },
  (table) => [unique().on(table.environmentId, table.presetKey)],
);

export type IntegrationRow = typeof integrations.$inferSelect;
export type IntegrationVersionRow = typeof integrationVersions.$inferSelect;
export type ConnectionRow = typeof connections.$inferSelect;
