/**
 * Gathers the lookups asked for during one turn of the event loop and answers them all with one `load`
 * (DataLoader's batching, without its cache). Under load many requests arrive in the same turn: one query
 * for all of them instead of a database round trip each. Nothing is served stale: the batch is sent after
 * every lookup in it was asked for, so each answer is at least as fresh as a query of its own would be.
 *
 * `load` gets distinct keys (by `idOf`) and answers a map by the same ids; a key it leaves out resolves to
 * undefined. A failed load fails every lookup of its batch.
 */
export function createBatcher<K, V>(
  load: (keys: K[]) => Promise<Map<string, V>>,
  idOf: (key: K) => string,
  { maxBatch = 100 } = {},
): (key: K) => Promise<V | undefined> {
  interface Waiting {
    id: string;
    resolve: (value: V | undefined) => void;
    reject: (error: unknown) => void;
  }
  let keys = new Map<string, K>();
  let waiting: Waiting[] = [];
  let scheduled = false;

  const run = () => {
    scheduled = false;
    if (waiting.length === 0) return;
    const batch = waiting;
    const batchKeys = [...keys.values()];
    waiting = [];
    keys = new Map();
    let loaded: Promise<Map<string, V>>;
    try {
      loaded = load(batchKeys);
    } catch (error) {
      loaded = Promise.reject(error);
    }
    loaded.then(
      (found) => {
        for (const entry of batch) entry.resolve(found.get(entry.id));
      },
      (error: unknown) => {
        for (const entry of batch) entry.reject(error);
      },
    );
  };

  return (key) =>
    new Promise<V | undefined>((resolve, reject) => {
      const id = idOf(key);
      keys.set(id, key);
      waiting.push({ id, resolve, reject });
      if (keys.size >= maxBatch) run();
      else if (!scheduled) {
        scheduled = true;
        // After the poll phase: every request read from the sockets in this turn has asked by then.
        setImmediate(run);
      }
    });
}
