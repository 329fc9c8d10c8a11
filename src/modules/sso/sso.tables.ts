import { boolean, index, integer, pgTable, text } from 'drizzle-orm/pg-core';
import { at } from '../../db/columns.js';
import { organizationIdColumn } from '../tenancy/index.js';

/** Migration 1101: an organization's OpenID provider (docs/sso.md). */
export const ssoProviders = pgTable('sso_providers', {
  organizationId: organizationIdColumn().primaryKey(),
  issuer: text('issuer').notNull(),
  clientId: text('client_id').notNull(),
  /** Under the key ring, bound to the organization (`sso_provider:<organizationId>:client_secret`). */
  clientSecretCiphertext: text('client_secret_ciphertext').notNull(),
  groupsClaim: text('groups_claim').notNull(),
  sessionMaxAgeSeconds: integer('session_max_age_seconds').notNull(),
  testedAt: at('tested_at'),
  enforced: boolean('enforced').notNull().default(false),
  breakGlassUserIds: text('break_glass_user_ids').array().notNull().default([]),
  updatedAt: at('updated_at').notNull(),
  updatedByUserId: text('updated_by_user_id'),
});
export type SsoProviderRow = typeof ssoProviders.$inferSelect;

/** Migration 1101: sign-ins between their start and their callback. */
export const ssoSignIns = pgTable(
  'sso_sign_ins',
  {
    stateDigest: text('state_digest').primaryKey(),
    organizationId: organizationIdColumn(),
    purpose: text('purpose', { enum: ['sign_in', 'test'] }).notNull(),
    browserDigest: text('browser_digest').notNull(),
    codeVerifier: text('code_verifier').notNull(),
    nonce: text('nonce').notNull(),
    returnTo: text('return_to').notNull(),
    startedByUserId: text('started_by_user_id'),
    expiresAt: at('expires_at').notNull(),
  },
  (table) => [
    index('sso_sign_ins_expiry').on(table.expiresAt),
    // Migration 1270: the newest of an organization's pending sign-ins, for the cap on how many it keeps.
    index('sso_sign_ins_organization').on(table.organizationId, table.expiresAt),
  ],
);
