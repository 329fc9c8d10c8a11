import { sql } from 'drizzle-orm';
import type { Database, Executor } from './client.js';

const CHANNEL = 'cadre_changes';

export interface Change {
  topic: string;
  [field: string]: string;
}

export interface ChangeSubscriber {
  onChange(change: Change): void;
  /** Notifications may have been missed (listener reconnected): forget everything cached. */
  reset(): void;
}

/**
 * Cross-instance cache invalidation over PostgreSQL LISTEN/NOTIFY. A change published inside a transaction
 * is delivered to every instance, this one included, only if and when that transaction commits.
 */
export interface ChangeBus {
  publish(executor: Executor, change: Change): Promise<void>;
  subscribe(subscriber: ChangeSubscriber): () => void;
  /** False while the listener is down; caches must not serve entries then. */
  isLive(): boolean;
  start(): Promise<void>;
  stop(): Promise<void>;
}

export function createChangeBus(database: Database, onError: (error: unknown) => void): ChangeBus {
  const subscribers = new Set<ChangeSubscriber>();
  let live = false;
  let unlisten: (() => Promise<void>) | undefined;

  const deliver = (payload: string) => {
    let change: Change;
    try {
      change = JSON.parse(payload) as Change;
    } catch (error) {
      onError(error);
      return;
    }
    for (const subscriber of subscribers) subscriber.onChange(change);
  };
  const resetAll = () => {
    live = false;
    for (const subscriber of subscribers) subscriber.reset();
  };

  return {
    publish: async (executor, change) => {
      await executor.execute(sql`SELECT pg_notify(${CHANNEL}, ${JSON.stringify(change)})`);
    },
    subscribe: (subscriber) => {
      subscribers.add(subscriber);
      return () => subscribers.delete(subscriber);
    },
    isLive: () => live,
    start: async () => {
      unlisten = await database.listen(CHANNEL, deliver, () => {
        // Called when the connection drops and again when it is back: either way, start from empty.
        resetAll();
        live = true;
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
