// The embedded database's own thread. PGlite runs each statement synchronously inside WebAssembly; on the
// service's thread that stalls every request (even /healthz) for as long as one tenant's heavy statement
// runs. Here, the service's thread keeps answering while statements run.
//
// PGlite is one connection: one statement, or one open transaction, at a time. Who goes next is decided
// here, not first come first served: the turns go round the tenants with work waiting
// (src/lib/tenant-turns.ts).
import { parentPort, workerData } from 'node:worker_threads';
import { PGlite, type Transaction, types } from '@electric-sql/pglite';
import { pg_trgm } from '@electric-sql/pglite/contrib/pg_trgm';
import { createTenantTurns } from '../../lib/tenant-turns.js';
import { createNamedStatements } from './named-statements.js';
import type { Reply, Request, RowMode, WireError, WorkerData } from './protocol.js';

if (!parentPort) throw new Error('the embedded database worker runs in a worker thread');
const port = parentPort;
const { dataDir } = workerData as WorkerData;

// PGlite hands text to a parser; for these types the caller parses (or keeps the text) on its side.
const keepText = (value: string) => value;

// The types drizzle's driver keeps as text (timestamps, dates, intervals and their arrays, numeric[]). They
// are PGlite's parsers from the start: a query that names parsers of its own makes PGlite copy its whole
// parser table for that statement, which cost about a third of a primary-key read.
const TEXT_SCALARS = [types.TIMESTAMP, types.TIMESTAMPTZ, types.INTERVAL, types.DATE];
/** Array type id → its element's type id. */
const TEXT_ARRAYS = new Map([
  [1231, types.NUMERIC],
  [1115, types.TIMESTAMP],
  [1185, types.TIMESTAMPTZ],
  [1187, types.INTERVAL],
  [1182, types.DATE],
]);
const textTypes = new Set([...TEXT_SCALARS, ...TEXT_ARRAYS.keys()]);
const textParsers = Object.fromEntries([...textTypes].map((type) => [type, keepText]));
// pg_trgm: the MCP catalog's search index (migration 1240); PostgreSQL servers ship it in their contrib.
const database = await PGlite.create({
  ...(dataDir ? { dataDir } : {}),
  parsers: textParsers,
  extensions: { pg_trgm },
});
// Start-up registers a parser for every array type (elements through the scalar's parser); these arrays
// stay text as a whole, as drizzle expects.
Object.assign(database.parsers, textParsers);
const statements = createNamedStatements(database);

/** PGlite's own parse of a type in the text set, for a caller that did not ask for text. */
function parseAsPglite(value: string, type: number): unknown {
  const element = TEXT_ARRAYS.get(type);
  if (element === undefined) return types.parseType(value, type);
  return types.arrayParser(value, (item: string) => types.parseType(item, element), type);
}

const transactions = new Map<
  number,
  { tx: Transaction; end: (commit: boolean) => void; done: Promise<void> }
>();
const subscriptions = new Map<number, () => Promise<void>>();
let nextTransaction = 1;

/** Thrown inside a transaction's callback to make PGlite roll it back; never reaches the caller. */
const ROLL_BACK = Symbol('roll back');

function toWire(error: unknown): WireError {
  if (!(error instanceof Error)) return { message: String(error), properties: {} };
  const properties: Record<string, unknown> = { name: error.name };
  for (const [key, value] of Object.entries(error)) {
    if (value === null || ['string', 'number', 'boolean'].includes(typeof value)) properties[key] = value;
  }
  return { message: error.message, properties };
}

function target(tx: number | undefined): PGlite | Transaction {
  if (tx === undefined) return database;
  const open = transactions.get(tx);
  if (!open) throw new Error(`transaction ${tx} is not open`);
  return open.tx;
}

async function begin(): Promise<number> {
  const id = nextTransaction++;
  let open!: (tx: Transaction) => void;
  let end!: (commit: boolean) => void;
  const opened = new Promise<Transaction>((resolve) => {
    open = resolve;
  });
  const ended = new Promise<boolean>((resolve) => {
    end = resolve;
  });
  const done = database.transaction(async (tx) => {
    open(tx);
    if (!(await ended)) throw ROLL_BACK;
  });
  // BEGIN can fail (the database closed): then the transaction never opens and `done` says why.
  const tx = await Promise.race([
    opened,
    done.then(() => Promise.reject(new Error('transaction ended early'))),
  ]);
  transactions.set(id, { tx, end, done });
  return id;
}

async function end(id: number, commit: boolean): Promise<void> {
  const open = transactions.get(id);
  if (!open) throw new Error(`transaction ${id} is not open`);
  transactions.delete(id);
  open.end(commit);
  try {
    await open.done.catch((error: unknown) => {
      if (error !== ROLL_BACK) throw error;
    });
  } finally {
    turns.release();
  }
}

// One holder at a time. The choice waits for the messages already sent to reach their queues: a statement
// runs to its end within the message that brought it (PGlite's awaits are microtasks), so choosing at once
// would only ever see the oldest message, first come first served.
const turns = createTenantTurns(1, (choose) => setImmediate(choose));

function takeTurn(request: Extract<Request, { tenant: string }>) {
  turns.wait(request.tenant, () =>
    respond(request, (failed) => {
      // A transaction that opened keeps the turn until its end; anything else gives it back now.
      if (request.op !== 'begin' || failed) turns.release();
    }),
  );
}

/** Answers a request, then tells `settled` (the turn's owner) whether it failed. */
function respond(request: Request, settled?: (failed: boolean) => void) {
  handle(request).then(
    (value) => {
      send({ kind: 'reply', id: request.id, ok: true, value });
      settled?.(false);
    },
    (error: unknown) => {
      send({ kind: 'reply', id: request.id, ok: false, error: toWire(error) });
      settled?.(true);
    },
  );
}

function send(reply: Reply) {
  try {
    port.postMessage(reply);
  } catch (error) {
    // A value that cannot cross (structured clone) still gets an answer, never silence.
    if (reply.kind === 'reply')
      port.postMessage({ kind: 'reply', id: reply.id, ok: false, error: toWire(error) });
  }
}

/** Gives a caller that did not ask for text (one of TEXT_TYPES left out of `rawTypes`) PGlite's own parse. */
function parseTextColumns(
  rows: Array<Record<string | number, unknown>>,
  fields: Array<{ name: string; dataTypeID: number }>,
  rowMode: RowMode,
  rawTypes: number[],
) {
  const columns = fields.flatMap((field, index) =>
    textTypes.has(field.dataTypeID) && !rawTypes.includes(field.dataTypeID)
      ? [{ key: rowMode === 'array' ? index : field.name, type: field.dataTypeID }]
      : [],
  );
  if (columns.length === 0) return;
  for (const row of rows) {
    for (const { key, type } of columns) {
      const value = row[key];
      if (typeof value === 'string') row[key] = parseAsPglite(value, type);
    }
  }
}

async function handle(request: Request): Promise<unknown> {
  switch (request.op) {
    case 'query': {
      const { rowMode, rawTypes } = request;
      // Types outside the text set still need their parsers named (none of the service's statements do).
      const extra = rawTypes.filter((type) => !textTypes.has(type));
      const options = extra.length
        ? { rowMode, parsers: Object.fromEntries(extra.map((type) => [type, keepText])) }
        : { rowMode };
      const on = target(request.tx);
      const inTransaction = request.tx !== undefined;
      const result = await statements.query(request.sql, request.params, options, inTransaction, () =>
        on.query(request.sql, request.params, options),
      );
      const { rows, fields, affectedRows } = result;
      parseTextColumns(rows as Array<Record<string | number, unknown>>, fields, rowMode, rawTypes);
      return { rows, fields, affectedRows };
    }
    case 'exec':
      await target(request.tx).exec(request.sql);
      return undefined;
    case 'begin':
      return begin();
    case 'end':
      return end(request.tx, request.commit);
    case 'listen': {
      const unsubscribe = await database.listen(request.channel, (payload) =>
        send({ kind: 'notification', subscription: request.subscription, payload }),
      );
      subscriptions.set(request.subscription, unsubscribe);
      return undefined;
    }
    case 'unlisten': {
      const unsubscribe = subscriptions.get(request.subscription);
      subscriptions.delete(request.subscription);
      await unsubscribe?.();
      return undefined;
    }
    case 'close':
      await database.close();
      return undefined;
  }
}

port.on('message', (request: Request) => {
  if (
    request.op === 'begin' ||
    ((request.op === 'query' || request.op === 'exec') && request.tx === undefined)
  ) {
    takeTurn(request);
  } else respond(request);
});
send({ kind: 'reply', id: 0, ok: true, value: 'ready' });
