import { randomBytes } from 'node:crypto';
import { and, asc, count, eq, sql } from 'drizzle-orm';
import type { Database, Executor } from '../../db/client.js';
import { ApiError, notFound } from '../../http/errors.js';
import type { Clock } from '../../lib/clock.js';
import { newId } from '../../lib/ids.js';
import type { KeyRing } from '../../lib/key-ring.js';
import {
  isAllowedHost,
  isRefusedLiteral,
  type OutboundAllowance,
} from '../../lib/outbound/address-policy.js';
import { recordAuditEvent } from '../audit/index.js';
import { type Principal, requirePermission } from '../auth/index.js';
import { parseRetired, retire } from './retired-secrets.js';
import type { CreateEndpointInput, UpdateEndpointInput, WebhookEndpointRecord } from './webhooks.schemas.js';
import { webhookEndpoints } from './webhooks.tables.js';

/** Endpoints an organization may have (docs/webhooks.md, "Limits"). */
const MAX_ENDPOINTS = 16;
/** How long a rotated-out secret keeps signing alongside the new one. */
const SECRET_OVERLAP_MS = 24 * 3_600_000;

type EndpointRow = typeof webhookEndpoints.$inferSelect;

export interface WebhooksServiceDeps {
  database: Database;
  clock: Clock;
  /** The key ring, or a 503 when none is configured. */
  keyRing: () => KeyRing;
  /** CADRE_WEBHOOKS_ALLOWED_PRIVATE_HOSTS (and loopback with CADRE_DEV): the only private hosts a URL may name. */
  allowedPrivateHosts: OutboundAllowance;
}

export type WebhooksService = ReturnType<typeof createWebhooksService>;

/** Binds a ciphertext to its endpoint and field: copied into another row, it fails to decrypt. */
export const secretAad = (endpointId: string, field: 'secret' | 'previous_secret') =>
  `webhook_endpoint:${endpointId}:${field}`;

/** A Standard Webhooks secret: `whsec_` and base64 of 32 random bytes. */
const newSecret = () => `whsec_${randomBytes(32).toString('base64')}`;

const present = (row: EndpointRow, now: Date): WebhookEndpointRecord => ({
  id: row.id,
  url: row.url,
  description: row.description,
  eventTypes: row.eventTypes as WebhookEndpointRecord['eventTypes'],
  enabled: row.enabled,
  disabledReason: row.disabledReason,
  failingSince: row.failingSince?.toISOString() ?? null,
  secretRotation:
    row.previousSecretExpiresAt && row.previousSecretExpiresAt > now
      ? { previousSecretExpiresAt: row.previousSecretExpiresAt.toISOString() }
      : null,
  createdAt: row.createdAt.toISOString(),
  updatedAt: row.updatedAt.toISOString(),
});

/** An organization's webhook endpoints, managed by its owners and admins (`webhooks:manage`). */
export function createWebhooksService({
  database,
  clock,
  keyRing,
  allowedPrivateHosts,
}: WebhooksServiceDeps) {
  const { db } = database;

  /**
   * Plain http only to a host the operator allows, and no address written in the URL that a delivery would
   * refuse (docs/webhooks.md, "Safe targets"): such an endpoint would fail every attempt for three days.
   */
  function checkTarget(value: string | undefined) {
    if (value === undefined) return;
    const url = new URL(value);
    const allow = allowedPrivateHosts.widenedBy ? ` (${allowedPrivateHosts.widenedBy})` : '';
    let message: string | undefined;
    if (isRefusedLiteral(allowedPrivateHosts, url))
      message = `must not name a private, loopback, link-local or reserved address${allow}`;
    else if (url.protocol !== 'https:' && !isAllowedHost(allowedPrivateHosts, url))
      message = `must be an https URL: plain http only to the hosts allowed${allow}`;
    if (message)
      throw new ApiError('validation_failed', 'Request validation failed', [{ path: 'url', message }]);
  }

  async function find(executor: Executor, principal: Principal, id: string, lock = false) {
    const query = executor
      .select()
      .from(webhookEndpoints)
      .where(and(eq(webhookEndpoints.id, id), eq(webhookEndpoints.organizationId, principal.organizationId)));
    const [row] = lock ? await query.for('update') : await query;
    // Another organization's endpoint reads as absent.
    if (!row) throw notFound(`Webhook endpoint ${id}`);
    return row;
  }

  const audit = (
    executor: Executor,
    principal: Principal,
    action: string,
    id: string,
    at: Date,
    metadata?: Record<string, unknown>,
  ) =>
    recordAuditEvent(executor, {
      organizationId: principal.organizationId,
      action,
      actor: principal,
      target: { type: 'webhookEndpoint', id },
      at,
      metadata,
    });

  return {
    async list(principal: Principal) {
      requirePermission(principal, 'webhooks:manage');
      const rows = await db
        .select()
        .from(webhookEndpoints)
        .where(eq(webhookEndpoints.organizationId, principal.organizationId))
        .orderBy(asc(webhookEndpoints.createdAt), asc(webhookEndpoints.id));
      const now = clock.now();
      return rows.map((row) => present(row, now));
    },

    async get(principal: Principal, id: string) {
      requirePermission(principal, 'webhooks:manage');
      return present(await find(db, principal, id), clock.now());
    },

    async create(principal: Principal, input: CreateEndpointInput) {
      requirePermission(principal, 'webhooks:manage');
      checkTarget(input.url);
      const ring = keyRing();
      const id = newId();
      const secret = newSecret();
      const now = clock.now();
      const row = await db.transaction(async (tx) => {
        // Counted under the organization's row lock, so concurrent creates cannot pass the limit together.
        await tx.execute(sql`SELECT 1 FROM organizations WHERE id = ${principal.organizationId} FOR UPDATE`);
        const [{ n }] = (await tx
          .select({ n: count() })
          .from(webhookEndpoints)
          .where(eq(webhookEndpoints.organizationId, principal.organizationId))) as [{ n: number }];
        if (n >= MAX_ENDPOINTS) {
          throw new ApiError('conflict', `An organization has at most ${MAX_ENDPOINTS} webhook endpoints`);
        }
        const [inserted] = await tx
          .insert(webhookEndpoints)
          .values({
            id,
            organizationId: principal.organizationId,
            url: input.url,
            description: input.description,
            eventTypes: input.eventTypes,
            enabled: input.enabled,
            secretCiphertext: ring.encrypt(secret, secretAad(id, 'secret')),
            createdAt: now,
            updatedAt: now,
          })
          .returning();
        await audit(tx, principal, 'webhook_endpoint.created', id, now, {
          url: input.url,
          eventTypes: input.eventTypes,
        });
        return inserted!;
      });
      return { endpoint: present(row, now), secret };
    },

    async update(principal: Principal, id: string, input: UpdateEndpointInput) {
      requirePermission(principal, 'webhooks:manage');
      checkTarget(input.url);
      const now = clock.now();
      const row = await db.transaction(async (tx) => {
        await find(tx, principal, id, true);
        const [updated] = await tx
          .update(webhookEndpoints)
          .set({
            ...input,
            // Enabling again clears why Cadre had disabled it, and starts counting failures afresh.
            ...(input.enabled === true ? { disabledReason: null, failingSince: null } : {}),
            updatedAt: now,
          })
          .where(eq(webhookEndpoints.id, id))
          .returning();
        await audit(tx, principal, 'webhook_endpoint.updated', id, now, { changed: Object.keys(input) });
        return updated!;
      });
      return present(row, now);
    },

    async remove(principal: Principal, id: string) {
      requirePermission(principal, 'webhooks:manage');
      const now = clock.now();
      const row = await db.transaction(async (tx) => {
        const found = await find(tx, principal, id, true);
        await tx.delete(webhookEndpoints).where(eq(webhookEndpoints.id, id));
        await audit(tx, principal, 'webhook_endpoint.deleted', id, now, { url: found.url });
        return found;
      });
      return present(row, now);
    },

    /**
     * A new secret, shown once; the current one keeps signing alongside it for 24 hours, and so do those
     * earlier rotations retired, each until its own 24 hours are over.
     */
    async rotateSecret(principal: Principal, id: string) {
      requirePermission(principal, 'webhooks:manage');
      const ring = keyRing();
      const secret = newSecret();
      const now = clock.now();
      const row = await db.transaction(async (tx) => {
        const found = await find(tx, principal, id, true);
        const current = ring.decrypt(found.secretCiphertext, secretAad(id, 'secret'));
        // Secrets retired by earlier rotations keep their own 24 hours.
        const still = found.previousSecretCiphertext
          ? parseRetired(
              ring.decrypt(found.previousSecretCiphertext, secretAad(id, 'previous_secret')),
              found.previousSecretExpiresAt,
              now,
            )
          : [];
        const retired = retire(still, current, new Date(now.getTime() + SECRET_OVERLAP_MS));
        const [updated] = await tx
          .update(webhookEndpoints)
          .set({
            secretCiphertext: ring.encrypt(secret, secretAad(id, 'secret')),
            previousSecretCiphertext: ring.encrypt(retired.plaintext, secretAad(id, 'previous_secret')),
            previousSecretExpiresAt: retired.latestExpiry,
            updatedAt: now,
          })
          .where(eq(webhookEndpoints.id, id))
          .returning();
        await audit(tx, principal, 'webhook_endpoint.secret_rotated', id, now);
        return updated!;
      });
      return { endpoint: present(row, now), secret };
    },
  };
}
