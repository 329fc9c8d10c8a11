import { and, eq, lt, lte } from 'drizzle-orm';
import type { FastifyReply, FastifyRequest } from 'fastify';
import stringify from 'safe-stable-stringify';
import type { Database } from '../../db/client.js';
import { ApiError, retryLater } from '../../http/errors.js';
import { sendSerialized } from '../../http/route-kit.js';
import type { Clock } from '../../lib/clock.js';
import { sha256Hex } from '../../lib/secrets.js';
import { idempotencyKeys } from './idempotency.tables.js';

const IDEMPOTENCY_HEADER = 'idempotency-key';
const REPLAYED_HEADER = 'Idempotent-Replayed';
const KEY_PATTERN = /^[\x20-\x7e]{1,255}$/;

export interface IdempotencyScope {
  organizationId: string;
  userId: string;
  /** A stable name of the operation (`billing.checkout`), not its URL: slug and id forms share keys. */
  endpoint: string;
  key: string;
}

/** What an idempotent request's work answers. */
export interface StoredAnswer {
  status: number;
  body: unknown;
}

/** An answer as it is sent, first or replayed: `json` is the body's text, the same bytes every time. */
export interface IdempotentAnswer {
  status: number;
  json: string;
  replayed: boolean;
}

export interface IdempotencyOptions {
  database: Database;
  clock: Clock;
  /** How long a key is remembered (24 h, docs/billing.md). */
  ttlMs?: number;
  /** A request still "running" after this long is taken to have died with its process; the key is reusable. */
  abandonAfterMs?: number;
}

/** The Idempotency-Key header, checked: 1–255 printable ASCII characters; missing or malformed is 422. */
export function idempotencyKeyOf(request: FastifyRequest): string {
  const value = request.headers[IDEMPOTENCY_HEADER];
  if (typeof value !== 'string' || value.length === 0) {
    throw new ApiError('validation_failed', 'Request validation failed', [
      { path: 'headers.Idempotency-Key', message: 'the Idempotency-Key header is required' },
    ]);
  }
  if (!KEY_PATTERN.test(value)) {
    throw new ApiError('validation_failed', 'Request validation failed', [
      { path: 'headers.Idempotency-Key', message: 'must be 1 to 255 printable ASCII characters' },
    ]);
  }
  return value;
}

/** JSON with object keys sorted, so `{a,b}` and `{b,a}` are the same request. */
export function canonicalJson(value: unknown): string {
  return stringify(value) ?? 'null';
}

export type Idempotency = ReturnType<typeof createIdempotency>;

/**
 * Stripe-style idempotent POSTs, race-safe in the database. The first request inserts the key (the
 * primary key decides the winner among concurrent ones) and runs; its answer is stored and replayed for
 * later requests with the same key and body, byte for byte: the body is written as JSON once, stored as that
 * text and sent as it, the first time and on every replay. While it runs, others get 409; another body gets 422.
 * Only answers of requests that ran are stored: callers validate first. A run that throws releases the
 * key, so the client may retry it (the provider call is itself idempotent on a key derived from ours).
 */
export function createIdempotency({
  database,
  clock,
  ttlMs = 86_400_000,
  abandonAfterMs = 60_000,
}: IdempotencyOptions) {
  const { db } = database;
  const where = (scope: IdempotencyScope) =>
    and(
      eq(idempotencyKeys.organizationId, scope.organizationId),
      eq(idempotencyKeys.userId, scope.userId),
      eq(idempotencyKeys.endpoint, scope.endpoint),
      eq(idempotencyKeys.key, scope.key),
    );

  async function claim(scope: IdempotencyScope, requestHash: string): Promise<boolean> {
    const now = clock.now();
    // An expired key is forgotten; then this request is a first one again.
    await db.delete(idempotencyKeys).where(and(where(scope), lte(idempotencyKeys.expiresAt, now)));
    const inserted = await db
      .insert(idempotencyKeys)
      .values({
        ...scope,
        requestHash,
        state: 'running',
        lockedAt: now,
        createdAt: now,
        expiresAt: new Date(now.getTime() + ttlMs),
      })
      .onConflictDoNothing()
      .returning({ key: idempotencyKeys.key });
    return inserted.length === 1;
  }

  async function takeOverAbandoned(scope: IdempotencyScope, requestHash: string): Promise<boolean> {
    const now = clock.now();
    const taken = await db
      .update(idempotencyKeys)
      .set({ lockedAt: now })
      .where(
        and(
          where(scope),
          eq(idempotencyKeys.state, 'running'),
          eq(idempotencyKeys.requestHash, requestHash),
          lt(idempotencyKeys.lockedAt, new Date(now.getTime() - abandonAfterMs)),
        ),
      )
      .returning({ key: idempotencyKeys.key });
    return taken.length === 1;
  }

  return {
    /**
     * Runs `work` once per (scope, body). `hashInput` is what makes two requests "the same" (the validated
     * body, without per-session fields such as csrfToken).
     */
    async run(
      scope: IdempotencyScope,
      hashInput: unknown,
      work: () => Promise<StoredAnswer>,
    ): Promise<IdempotentAnswer> {
      const requestHash = sha256Hex(canonicalJson(hashInput));
      let owner = await claim(scope, requestHash);
      if (!owner) {
        const [existing] = await db.select().from(idempotencyKeys).where(where(scope));
        if (!existing) {
          // Released or expired between our insert and this read: one more try decides.
          owner = await claim(scope, requestHash);
          if (!owner) throw inUse();
        } else if (existing.requestHash !== requestHash) {
          throw new ApiError(
            'idempotency_key_reused',
            'This Idempotency-Key was already used with a different request body',
          );
        } else if (existing.state === 'done') {
          return {
            status: existing.responseStatus ?? 200,
            json: existing.responseText ?? 'null',
            replayed: true,
          };
        } else if (!(await takeOverAbandoned(scope, requestHash))) {
          throw inUse();
        }
      }
      let answer: StoredAnswer;
      try {
        answer = await work();
      } catch (error) {
        await db.delete(idempotencyKeys).where(and(where(scope), eq(idempotencyKeys.state, 'running')));
        throw error;
      }
      const json = JSON.stringify(answer.body);
      await db
        .update(idempotencyKeys)
        .set({ state: 'done', responseStatus: answer.status, responseText: json })
        .where(where(scope));
      return { status: answer.status, json, replayed: false };
    },

    /** Deletes keys past their 24 hours. */
    async sweep(): Promise<void> {
      await db.delete(idempotencyKeys).where(lte(idempotencyKeys.expiresAt, clock.now()));
    },
  };
}

const inUse = () =>
  retryLater(
    'idempotency_key_in_use',
    'A request with this Idempotency-Key is still being processed; retry shortly',
    1,
  );

/** Sends a (possibly replayed) idempotent answer: its stored bytes, never serialized again. */
export function sendIdempotent(reply: FastifyReply, answer: IdempotentAnswer) {
  if (answer.replayed) reply.header(REPLAYED_HEADER, 'true');
  return sendSerialized(reply.code(answer.status), Buffer.from(answer.json));
}
