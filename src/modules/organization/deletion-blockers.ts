import { and, asc, eq, gt, inArray, isNull, or, sql } from 'drizzle-orm';
import type { Tx } from '../../db/client.js';
import { ApiError, type ErrorDetail } from '../../http/errors.js';
import type { Clock } from '../../lib/clock.js';
import { API_KEY_CHANGED, apiKeys } from '../api-keys/index.js';
import { type AuditMetadata, recordAuditEvent } from '../audit/index.js';
import type { Principal } from '../auth/index.js';

// What keeps a project, environment or agent from being deleted (docs/organization-api.md, "Projects,
// environments and agents"): the connections of its environments and the live API keys whose grants name it.
// Without `cascade` the deletion is 409 naming each; with it they are disconnected and revoked in the
// deletion's own transaction, each audited with what caused it. The connections are the oauth module's: they
// are reached through the `BlockingConnections` port the projects service builds, so this file knows no
// oauth table.

interface ConnectionRow {
  id: string;
  environmentId: string;
}

/** The connections a deletion meets (the oauth module's, see the opening comment). */
export interface BlockingConnections<Row extends ConnectionRow> {
  /** The connections of these environments, oldest first, locked (`FOR UPDATE`) as a disconnect locks them. */
  lockedIn(tx: Tx, environmentIds: string[]): Promise<Row[]>;
  /** How a 409 names a connection: its provider and account. */
  label(row: Row): string;
  /** Revokes a connection's tokens at the provider and deletes it, as `DELETE …/connections/{id}` does. */
  disconnect(tx: Tx, row: Row, principal: Principal, cause: AuditMetadata): Promise<unknown>;
}

/** What keeps a project, environment or agent from being deleted without `cascade`. */
interface Blockers<Row extends ConnectionRow = ConnectionRow> {
  connections: Row[];
  apiKeys: Array<{ id: string; name: string | null }>;
}

export interface DeletionBlockersDeps<Row extends ConnectionRow> {
  clock: Clock;
  connections: BlockingConnections<Row>;
}

export const hasBlockers = (b: Blockers) => b.connections.length > 0 || b.apiKeys.length > 0;

/** What the deletion's audit record lists as removed with it. */
export const blockersSummary = (b: Blockers) => ({
  connections: b.connections.map((c) => c.id),
  apiKeys: b.apiKeys.map((k) => k.id),
});

/** 409 naming each blocker: `details` paths are `connections.<id>` and `apiKeys.<id>`, messages name them. */
function refuseDeletion<Row extends ConnectionRow>(
  what: string,
  blockers: Blockers<Row>,
  environmentNames: Map<string, string>,
  label: (row: Row) => string,
): never {
  const details: ErrorDetail[] = [
    ...blockers.connections.map((c) => ({
      path: `connections.${c.id}`,
      message: `${label(c)} (${environmentNames.get(c.environmentId) ?? c.environmentId})`,
    })),
    ...blockers.apiKeys.map((k) => ({ path: `apiKeys.${k.id}`, message: k.name ?? '(unnamed key)' })),
  ];
  const counts = [
    blockers.connections.length ? `${blockers.connections.length} connection(s)` : '',
    blockers.apiKeys.length ? `${blockers.apiKeys.length} API key grant(s)` : '',
  ].filter(Boolean);
  throw new ApiError(
    'conflict',
    `${what} is used by ${counts.join(' and ')}; disconnect and revoke them, or delete with cascade=true`,
    details,
  );
}

export function createDeletionBlockers<Row extends ConnectionRow>({
  clock,
  connections,
}: DeletionBlockersDeps<Row>) {
  /**
   * The connections of these environments (locked, as a disconnect locks them) and the live API keys whose
   * grants name any of these projects, environments or agents. The environments are locked first
   * (`FOR UPDATE`), so no OAuth callback can add a connection to them until this transaction ends.
   */
  async function blockersOf(
    tx: Tx,
    organizationId: string,
    named: { projectIds: string[]; environmentIds: string[]; agentIds: string[] },
  ): Promise<Blockers<Row>> {
    const connectionRows = named.environmentIds.length
      ? await connections.lockedIn(tx, named.environmentIds)
      : [];
    const keyRows = await tx
      .select({ id: apiKeys.id, name: apiKeys.name, grants: apiKeys.grants })
      .from(apiKeys)
      .where(
        and(
          eq(apiKeys.organizationId, organizationId),
          isNull(apiKeys.revokedAt),
          or(isNull(apiKeys.expiresAt), gt(apiKeys.expiresAt, clock.now())),
          sql`${apiKeys.grants}->>'type' <> 'organization'`,
        ),
      )
      .orderBy(asc(apiKeys.seq));
    const names = (ids: string[], among: string[]) => ids.some((id) => among.includes(id));
    const keys = keyRows.filter(({ grants }) => {
      switch (grants.type) {
        case 'project':
          return names(grants.projectIds, named.projectIds);
        case 'environment':
          return names(grants.environmentIds, named.environmentIds);
        case 'agent':
          return names(grants.agentIds, named.agentIds);
        default:
          return false;
      }
    });
    return { connections: connectionRows, apiKeys: keys.map(({ id, name }) => ({ id, name })) };
  }

  /** With `cascade`: disconnects the connections and revokes the keys, audited with what caused it. */
  async function removeBlockers(
    tx: Tx,
    publish: (change: { topic: string; id: string }) => Promise<void>,
    principal: Principal,
    organizationId: string,
    blockers: Blockers<Row>,
    cause: AuditMetadata,
  ) {
    for (const row of blockers.connections) await connections.disconnect(tx, row, principal, cause);
    if (blockers.apiKeys.length === 0) return;
    const revoked = await tx
      .update(apiKeys)
      .set({ revokedAt: clock.now() })
      .where(
        and(
          inArray(
            apiKeys.id,
            blockers.apiKeys.map((k) => k.id),
          ),
          isNull(apiKeys.revokedAt),
        ),
      )
      .returning({ id: apiKeys.id });
    for (const { id } of revoked) {
      await recordAuditEvent(tx, {
        organizationId,
        action: 'api_key.revoked',
        actor: principal,
        target: { type: 'apiKey', id },
        at: clock.now(),
        metadata: { cascade: cause },
      });
      await publish({ topic: API_KEY_CHANGED, id });
    }
  }

  /** 409 naming each blocker (`refuseDeletion`), connections by their `label`. */
  const refuse = (what: string, blockers: Blockers<Row>, environmentNames: Map<string, string>): never =>
    refuseDeletion(what, blockers, environmentNames, connections.label);

  return { blockersOf, removeBlockers, refuse };
}
