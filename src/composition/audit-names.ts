// The names the audit log shows for the records other modules own (docs/architecture.md, "Module map"). Each
// owning module names its own kinds of record through the audit module's port (RecordNames,
// src/modules/audit/audit-names.ts), so the audit module reads no other module's tables; this file only
// gathers them, by the target type each module records.
import type { Database } from '../db/client.js';
import { apiKeyAuditNames } from '../modules/api-keys/index.js';
import type { AuditRecordNames } from '../modules/audit/index.js';
import { invitationAuditNames } from '../modules/members/index.js';
import { oauthAuditNames } from '../modules/oauth/index.js';
import { expertAuditNames } from '../modules/registry/index.js';
import { tenancyAuditNames } from '../modules/tenancy/index.js';
import { webhookAuditNames } from '../modules/webhooks/index.js';

export function auditRecordNames(database: Pick<Database, 'db'>): AuditRecordNames {
  const tenancy = tenancyAuditNames(database);
  return {
    ...tenancy,
    // Billing records a subscription's changes against its organization's id: it goes by the organization's name.
    subscription: tenancy.organization,
    ...apiKeyAuditNames(database),
    ...invitationAuditNames(database),
    ...oauthAuditNames(database),
    ...expertAuditNames(database),
    ...webhookAuditNames(),
  };
}
