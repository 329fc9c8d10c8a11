import { randomBytes } from 'node:crypto';
import { sql } from 'drizzle-orm';
import type { Database, Tx } from './client.js';

const CHANNEL = 'cadre_changes';
const ACK = '_ack';

export interface Change {
  topic: string;
  [field: string]: string;
}

export interface ChangeSubscriber {
  onChange(change: Change): void;
  /** Notifications may have been missed (listener reconnected): forget everything cached. */
  reset(): void;
}

interface DeliveryReceipt {
  /**
   * Resolves once every instance listening on the database has applied the change (each acknowledges it on
   * the bus), or after `timeoutMs` — an instance that cannot acknowledge has lost its listener, and an
   * instance without a listener serves nothing from its caches.
   */
  applied(timeoutMs?: number): Promise<boolean>;
}

/** Publishes a change from inside `ChangeBus.commit`'s transaction. */
type Publish<C extends Change> = (change: C) => Promise<void>;

/**
 * Cross-instance cache invalidation over PostgreSQL LISTEN/NOTIFY. A change published inside a transaction
 * is delivered to every instance, this one included, only if and when that transaction commits.
 */
export interface ChangeBus {
  /**
   * The one way to write and tell the instances: runs `work` in a transaction, in which it publishes its
   * changes; after the commit `evict` drops each change from this instance's caches at once, and the answer
   * waits until every instance has applied them, so no instance serves the old state after it.
   */
  commit<T, C extends Change = Change>(
    work: (tx: Tx, publish: Publish<C>) => Promise<T>,
    evict?: (change: C) => void,
  ): Promise<T>;
  subscribe(subscriber: ChangeSubscriber): () => void;
  /** False while the listener is down; caches must not serve entries then. */
  isLive(): boolean;
  start(): Promise<void>;
  stop(): Promise<void>;
}

export function createChangeBus(database: Database, onError: (error: unknown) => void): ChangeBus {
  const subscribers = new Set<ChangeSubscriber>();
  const instance = randomBytes(9).toString('base64url');
  let live = false;
  let unlisten: (() => Promise<void>) | undefined;
  // Acknowledgements can arrive before the publisher's COMMIT returns: they are kept until claimed or stale.
  const acks = new Map<string, { from: Set<string>; at: number; wake?: () => void }>();

  const ackEntry = (nonce: string) => {
    let entry = acks.get(nonce);
    if (!entry) {
      entry = { from: new Set(), at: Date.now() };
      acks.set(nonce, entry);
      for (const [key, value] of acks) if (Date.now() - value.at > 60_000) acks.delete(key);
    }
    return entry;
  };

  const deliver = (payload: string) => {
    let change: Change;
    try {
      change = JSON.parse(payload) as Change;
    } catch (error) {
      onError(error);
      return;
    }
    const nonce = change.nonce;
    if (change.topic === ACK) {
      if (!nonce || !change.instance) return;
      const entry = ackEntry(nonce);
      entry.from.add(change.instance);
      entry.wake?.();
      return;
    }
    for (const subscriber of subscribers) subscriber.onChange(change);
    if (nonce) {
      const ack = JSON.stringify({ topic: ACK, nonce, instance });
      database.db.execute(sql`SELECT pg_notify(${CHANNEL}, ${ack})`).catch(onError);
    }
  };

  const receipt = (nonce: string): DeliveryReceipt => ({
    applied: async (timeoutMs = 2_000) => {
      if (!live) return false;
      const expected = await database.listenerCount(CHANNEL);
      const entry = ackEntry(nonce);
      const done = await new Promise<boolean>((resolve) => {
        const check = () => {
          if (entry.from.size < expected) return;
          clearTimeout(timer);
          resolve(true);
        };
        const timer = setTimeout(() => resolve(false), timeoutMs);
        entry.wake = check;
        check();
      });
      acks.delete(nonce);
      return done;
    },
  });

  const resetAll = () => {
    for (const subscriber of subscribers) subscriber.reset();
  };

  const publish = async (tx: Tx, change: Change): Promise<DeliveryReceipt> => {
    const nonce = randomBytes(9).toString('base64url');
    await tx.execute(sql`SELECT pg_notify(${CHANNEL}, ${JSON.stringify({ ...change, nonce })})`);
    return receipt(nonce);
  };

  async function commit<T, C extends Change>(
    work: (tx: Tx, publish: Publish<C>) => Promise<T>,
    evict?: (change: C) => void,
  ): Promise<T> {
    const published: { change: C; receipt: DeliveryReceipt }[] = [];
    const result = await database.db.transaction((tx) =>
      work(tx, async (change) => {
        published.push({ change, receipt: await publish(tx, change) });
      }),
    );
    if (evict) for (const { change } of published) evict(change);
    await Promise.all(published.map(({ receipt }) => receipt.applied()));
    return result;
  }

  return {
    commit,
    subscribe: (subscriber) => {
      subscribers.add(subscriber);
      return () => subscribers.delete(subscriber);
    },
    isLive: () => live,
    start: async () => {
      unlisten = await database.listen(CHANNEL, deliver, {
        onDown: () => {
          live = false;
          resetAll();
        },
        // Whatever was cached before the gap may be stale: start from empty.
        onUp: () => {
          resetAll();
          live = true;
        },
      });
      live = true;
    },
    stop: async () => {
      live = false;
      // The database may already be gone (shutdown after an outage): there is nothing left to unlisten.
      await unlisten?.().catch(onError);
    },
  };
}
