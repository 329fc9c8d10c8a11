import { and, eq, inArray, isNotNull, sql } from 'drizzle-orm';
import { Webhook } from 'standardwebhooks';
import type { Database } from '../../db/client.js';
import type { Clock } from '../../lib/clock.js';
import { newId } from '../../lib/ids.js';
import type { KeyRing } from '../../lib/key-ring.js';
import type { OutboundAllowance } from '../../lib/outbound/address-policy.js';
import { recordAuditEvent } from '../audit/index.js';
import { events, presentEvent } from '../events/index.js';
import type { DeliveryEvents } from '../metrics/index.js';
import { type ClaimedDelivery, claimDue } from './deliveries.repo.js';
import { parseRetired } from './retired-secrets.js';
import { FAILING_DISABLE_MS, retryDelayMs } from './retry-schedule.js';
import { type SendResult, sendDelivery } from './sender.js';
import { secretAad } from './webhooks.service.js';
import { webhookDeliveries, webhookDeliveryAttempts, webhookEndpoints } from './webhooks.tables.js';

export interface DeliveryWorkerDeps {
  database: Database;
  clock: Clock;
  keyRing: KeyRing;
  allowedPrivateHosts: OutboundAllowance;
  events: DeliveryEvents;
  onError: (error: unknown) => void;
  /** How often due deliveries are looked for (default 1 s). */
  pollIntervalMs?: number | undefined;
  /** The claim's lease (default 30 s): longer than an attempt's 10 s, so a live worker never loses one. */
  leaseMs?: number | undefined;
  /** Deliveries in flight on this instance at most (default 32). */
  concurrency?: number | undefined;
  /** Of which for one organization at most (default 4): its slow endpoint cannot take every slot. */
  perOrganization?: number | undefined;
  timeoutMs?: number | undefined;
  resolve?: Parameters<typeof sendDelivery>[3]['resolve'];
}

export type DeliveryWorker = ReturnType<typeof createDeliveryWorker>;

const outcomeOf = (result: SendResult): Parameters<DeliveryEvents['attempt']>[0] => {
  if (result.statusCode !== null) return isSuccess(result) ? 'succeeded' : 'http_error';
  if (result.refused) return 'refused';
  return result.timedOut ? 'timeout' : 'network_error';
};
const isSuccess = (result: SendResult) =>
  result.statusCode !== null && result.statusCode >= 200 && result.statusCode < 300;

/**
 * Sends what the outbox holds (docs/webhooks.md, "Deliveries"). Every instance runs one; they share the work
 * through the claims (deliveries.repo.ts). An attempt's outcome, the delivery's next state and the endpoint's
 * (failing since, disabled) are written in one transaction, guarded by the claim's token: a worker whose lease
 * ran out (it stalled) cannot overwrite what the worker that took over wrote.
 */
export function createDeliveryWorker(deps: DeliveryWorkerDeps) {
  const { db } = deps.database;
  const pollIntervalMs = deps.pollIntervalMs ?? 1_000;
  const leaseMs = deps.leaseMs ?? 30_000;
  const concurrency = deps.concurrency ?? 32;
  const perOrganization = deps.perOrganization ?? 4;
  const inFlight = new Map<string, number>();
  const running = new Set<Promise<void>>();
  let timer: NodeJS.Timeout | undefined;
  let stopped = true;
  let round: Promise<void> | undefined;
  let again = false;

  async function load(claim: ClaimedDelivery) {
    const [row] = await db
      .select({ endpoint: webhookEndpoints, event: events })
      .from(webhookEndpoints)
      .innerJoin(events, eq(events.id, claim.eventId))
      .where(eq(webhookEndpoints.id, claim.endpointId));
    return row;
  }

  /** The signing secrets: the current one, and those rotations retired while each is in its overlap. */
  function secretsOf(endpoint: typeof webhookEndpoints.$inferSelect, now: Date): string[] {
    const secrets = [deps.keyRing.decrypt(endpoint.secretCiphertext, secretAad(endpoint.id, 'secret'))];
    if (
      endpoint.previousSecretCiphertext &&
      endpoint.previousSecretExpiresAt &&
      endpoint.previousSecretExpiresAt > now
    ) {
      const retired = parseRetired(
        deps.keyRing.decrypt(endpoint.previousSecretCiphertext, secretAad(endpoint.id, 'previous_secret')),
        endpoint.previousSecretExpiresAt,
        now,
      );
      secrets.push(...retired.map((entry) => entry.secret));
    }
    return secrets;
  }

  async function release(claim: ClaimedDelivery, token: string) {
    await db
      .update(webhookDeliveries)
      .set({ claimedUntil: null, claimToken: null })
      .where(and(eq(webhookDeliveries.id, claim.id), eq(webhookDeliveries.claimToken, token)));
  }

  async function deliver(claim: ClaimedDelivery, token: string) {
    const found = await load(claim);
    // Disabled or deleted since the claim: it waits (a disabled endpoint's deliveries resume when enabled).
    if (!found?.endpoint.enabled) return release(claim, token);
    const { endpoint, event } = found;
    const body = JSON.stringify(presentEvent({ ...event, createdAt: event.createdAt.toISOString() }));
    // The signed timestamp is the wall clock's, whatever clock schedules retries: receivers check it
    // against theirs (Standard Webhooks: within five minutes).
    const sentAt = new Date();
    const signature = secretsOf(endpoint, deps.clock.now())
      .map((secret) => new Webhook(secret).sign(claim.id, sentAt, body))
      .join(' ');
    const result = await sendDelivery(
      endpoint.url,
      {
        'webhook-id': claim.id,
        'webhook-timestamp': String(Math.floor(sentAt.getTime() / 1000)),
        'webhook-signature': signature,
      },
      body,
      {
        allowedPrivateHosts: deps.allowedPrivateHosts,
        timeoutMs: deps.timeoutMs,
        ...(deps.resolve ? { resolve: deps.resolve } : {}),
      },
    );
    deps.events.attempt(outcomeOf(result));
    try {
      await record(claim, token, endpoint, result, { logged: true });
    } catch (error) {
      // The attempt's log line could not be written, whatever the reason: its outcome still is, without it.
      // Otherwise the delivery would stay claimed, be sent again and again, and never fail its endpoint.
      deps.onError(error);
      await record(claim, token, endpoint, result, { logged: false });
    }
  }

  async function record(
    claim: ClaimedDelivery,
    token: string,
    endpoint: typeof webhookEndpoints.$inferSelect,
    result: SendResult,
    { logged }: { logged: boolean },
  ) {
    const now = deps.clock.now();
    const succeeded = isSuccess(result);
    const gone = result.statusCode === 410;
    const attempts = claim.attempts + 1;
    const delay = succeeded || gone ? undefined : retryDelayMs(attempts);
    const status = succeeded ? 'succeeded' : delay === undefined ? 'failed' : 'pending';
    await db.transaction(async (tx) => {
      // The endpoint first, as its deletion locks it before (cascading) its deliveries: taken the other way
      // round, each transaction would hold what the other waits for. KEY SHARE only keeps it from being deleted
      // meanwhile; deleted already, its deliveries went with it and there is nothing to record.
      const [stillThere] = await tx
        .select({ id: webhookEndpoints.id })
        .from(webhookEndpoints)
        .where(eq(webhookEndpoints.id, endpoint.id))
        .for('key share');
      if (!stillThere) return;
      if (logged) {
        await tx.insert(webhookDeliveryAttempts).values({
          id: newId(),
          deliveryId: claim.id,
          attemptedAt: now,
          statusCode: result.statusCode,
          error: result.error,
          latencyMs: result.latencyMs,
          responseExcerpt: result.excerpt,
        });
      }
      const [updated] = await tx
        .update(webhookDeliveries)
        .set({
          status,
          attempts,
          nextAttemptAt: delay === undefined ? now : new Date(now.getTime() + delay),
          claimedUntil: null,
          claimToken: null,
          completedAt: status === 'pending' ? null : now,
        })
        .where(and(eq(webhookDeliveries.id, claim.id), eq(webhookDeliveries.claimToken, token)))
        .returning({ id: webhookDeliveries.id });
      // The lease ran out and another worker took the delivery over: the attempt is logged, its state is theirs.
      if (!updated) return;
      if (status === 'failed') deps.events.gaveUp();
      if (succeeded) {
        await tx
          .update(webhookEndpoints)
          .set({ failingSince: null })
          .where(and(eq(webhookEndpoints.id, endpoint.id), isNotNull(webhookEndpoints.failingSince)));
        return;
      }
      const [failing] = await tx
        .update(webhookEndpoints)
        .set({ failingSince: sql`coalesce(${webhookEndpoints.failingSince}, ${now})` })
        .where(eq(webhookEndpoints.id, endpoint.id))
        .returning({ since: webhookEndpoints.failingSince });
      const since = failing?.since;
      if (gone) {
        await disable(tx, endpoint, now, 'gone', `The endpoint answered 410 Gone on ${now.toISOString()}`);
      } else if (since && now.getTime() - since.getTime() >= FAILING_DISABLE_MS) {
        await disable(
          tx,
          endpoint,
          now,
          'failing',
          `Every delivery attempt failed for three days (since ${since.toISOString()}; last: ${describe(result)})`,
        );
        // This delivery's three days are spent too (jitter may have left it one more attempt): given up.
        if (status === 'pending') {
          await tx
            .update(webhookDeliveries)
            .set({ status: 'failed', completedAt: now })
            .where(eq(webhookDeliveries.id, claim.id));
          deps.events.gaveUp();
        }
      }
    });
  }

  /** Cadre disables an endpoint: once (only while it is enabled), audited, told as an event. */
  async function disable(
    tx: Parameters<Parameters<typeof db.transaction>[0]>[0],
    endpoint: typeof webhookEndpoints.$inferSelect,
    now: Date,
    reason: 'gone' | 'failing',
    text: string,
  ) {
    const [changed] = await tx
      .update(webhookEndpoints)
      .set({ enabled: false, disabledReason: text, updatedAt: now })
      .where(and(eq(webhookEndpoints.id, endpoint.id), eq(webhookEndpoints.enabled, true)))
      .returning({ id: webhookEndpoints.id });
    if (!changed) return;
    await recordAuditEvent(tx, {
      organizationId: endpoint.organizationId,
      action: 'webhook_endpoint.disabled',
      actor: { kind: 'system' },
      target: { type: 'webhookEndpoint', id: endpoint.id },
      at: now,
      metadata: { url: endpoint.url, reason: text },
    });
    deps.events.endpointDisabled(reason);
  }

  function start(claim: ClaimedDelivery, token: string) {
    inFlight.set(claim.organizationId, (inFlight.get(claim.organizationId) ?? 0) + 1);
    const task = deliver(claim, token)
      .catch(deps.onError)
      .finally(() => {
        const left = (inFlight.get(claim.organizationId) ?? 1) - 1;
        if (left > 0) inFlight.set(claim.organizationId, left);
        else inFlight.delete(claim.organizationId);
        running.delete(task);
        // A slot came free: look again at once rather than at the next tick.
        if (!stopped) wake();
      });
    running.add(task);
  }

  async function claimRound() {
    const free = concurrency - running.size;
    if (free <= 0) return;
    const token = newId();
    const claimed = await claimDue(db, {
      now: deps.clock.now(),
      leaseMs,
      token,
      organizations: Math.max(1, Math.ceil(free / perOrganization)),
      perOrganization,
      busyOrganizations: [...inFlight].filter(([, n]) => n >= perOrganization).map(([org]) => org),
    });
    // A round may take a few more of an organization than it has slots left for: those go back at once.
    const excess: string[] = [];
    for (const claim of claimed) {
      if ((inFlight.get(claim.organizationId) ?? 0) >= perOrganization) excess.push(claim.id);
      else start(claim, token);
    }
    if (excess.length > 0) {
      await db
        .update(webhookDeliveries)
        .set({ claimedUntil: null, claimToken: null })
        .where(and(inArray(webhookDeliveries.id, excess), eq(webhookDeliveries.claimToken, token)));
    }
  }

  /** Runs a claim round now (one at a time; a wake during a round runs another right after it). */
  function wake() {
    if (stopped) return;
    if (round) {
      again = true;
      return;
    }
    round = claimRound()
      .catch(deps.onError)
      .finally(() => {
        round = undefined;
        if (again) {
          again = false;
          wake();
        }
      });
  }

  return {
    wake,
    start() {
      stopped = false;
      timer = setInterval(wake, pollIntervalMs);
      timer.unref();
      wake();
    },
    /** Stops claiming; waits for the deliveries in flight (each bounded by its 10 s timeout). */
    async stop() {
      stopped = true;
      clearInterval(timer);
      await round;
      await Promise.all([...running]);
    },
    /** Tests: resolves once nothing is in flight. */
    async idle() {
      while (round || running.size > 0) await Promise.all([round, ...running]);
    },
  };
}

const describe = (result: SendResult) =>
  result.statusCode !== null ? `HTTP ${result.statusCode}` : (result.error ?? 'no answer');
