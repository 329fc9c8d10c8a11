import type { ChangeBus } from '../../db/change-bus.js';
import type { Database, Executor } from '../../db/client.js';
import type { Clock } from '../../lib/clock.js';
import type { Actor } from '../auth/index.js';
import type { AccountCredentials } from './account-reset.js';
import type { Organization } from './tenancy.tables.js';

/**
 * What the composition hands the tenancy service; each of its parts (organizations, memberships, projects,
 * users) takes only the `Pick<>` of it that it uses.
 */
export interface TenancyServiceDeps {
  database: Database;
  bus: ChangeBus;
  /** Audit events carry the time of the change. */
  clock: Clock;
  /** Runs in the transaction creating an organization (its publish policy from the operator's default). */
  onOrganizationCreated?: (tx: Executor, organization: Organization) => Promise<void>;
  /**
   * Writes an audit event in the change's transaction: the audit trail is built on tenancy (its records
   * belong to organizations), so the composition hands its write in (src/modules/audit, recordAuditEvent).
   */
  recordAudit: (executor: Executor, change: TenancyAuditChange) => Promise<void>;
  /** The sessions and API keys an account reset ends (./account-reset.ts). */
  credentials: AccountCredentials;
}

/** An audited change of tenancy's, as the audit trail records it. */
export interface TenancyAuditChange {
  organizationId: string;
  action: string;
  actor: Actor;
  target: { type: string; id: string };
  at: Date;
  metadata?: Record<string, unknown> | undefined;
}
