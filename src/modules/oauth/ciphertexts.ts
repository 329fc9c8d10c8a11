import type { ConnectionRow } from './oauth.tables.js';

// The associated data each encrypted column is sealed with: a ciphertext opens only in the row (and field) it
// was written for, so one copied to another row is unreadable rather than someone else's secret. Every module
// that writes or re-encrypts these columns (integrations, connections, the key rotation) uses these.

/** Associated data of a connection's token ciphertexts: the row's identity and the field. */
export const connectionAad = (
  row: Pick<ConnectionRow, 'organizationId' | 'projectId' | 'environmentId' | 'presetKey'>,
  field: 'access_token' | 'refresh_token',
) => `cadre:connection:${row.organizationId}:${row.projectId}:${row.environmentId}:${row.presetKey}:${field}`;

/** Associated data of an integration version's client secret ciphertext. */
export const clientSecretAad = (versionId: string) => `cadre:integration-version:${versionId}:client_secret`;
