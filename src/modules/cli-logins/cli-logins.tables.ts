import { pgTable, text } from 'drizzle-orm/pg-core';
import { at } from '../../db/columns.js';
import { apiKeys } from '../api-keys/index.js';
import { organizations } from '../tenancy/index.js';

/**
 * A `cadre login` waiting for a person to approve it in the console (docs/api-keys.md, "cadre login"). The
 * CLI made the key's secret itself: only its digest and start are here, and become the key on approval.
 */
export const cliLogins = pgTable('cli_logins', {
  id: text('id').primaryKey(),
  /** SHA-256 hex of the device code the CLI polls with; the code itself is never stored. */
  deviceCodeDigest: text('device_code_digest').notNull().unique(),
  /** The short code the person compares in the browser (`ABCD-EFGH`). */
  userCode: text('user_code').notNull().unique(),
  /** The machine's name, which the new key is named after. */
  name: text('name').notNull(),
  keyStart: text('key_start').notNull(),
  keyDigest: text('key_digest').notNull(),
  createdAt: at('created_at').notNull(),
  expiresAt: at('expires_at').notNull(),
  /** Set on approval: the key made from the digest. */
  apiKeyId: text('api_key_id').references(() => apiKeys.id),
  organizationId: text('organization_id').references(() => organizations.id),
  deniedAt: at('denied_at'),
});
