// Messages between the service's thread and the embedded database's worker thread (./worker.ts). Every
// value crosses by structured clone, so nothing here holds a function: a caller's result parsers stay on
// its side (./client.ts applies them), the worker only learns which type ids to leave as text.

export type RowMode = 'array' | 'object';

/**
 * `tenant` says whose turn a statement outside a transaction (or a transaction's start) takes: the worker
 * runs one at a time, taking turns between tenants (./worker.ts). A statement of an open transaction (`tx`)
 * runs at once: its transaction holds the turn.
 */
export type Request =
  | {
      id: number;
      op: 'query';
      sql: string;
      params: unknown[];
      rowMode: RowMode;
      rawTypes: number[];
      tx?: number | undefined;
      tenant: string;
    }
  | { id: number; op: 'exec'; sql: string; tx?: number | undefined; tenant: string }
  | { id: number; op: 'begin'; tenant: string }
  | { id: number; op: 'end'; tx: number; commit: boolean }
  | { id: number; op: 'listen'; channel: string; subscription: number }
  | { id: number; op: 'unlisten'; subscription: number }
  | { id: number; op: 'close' };

export interface Field {
  name: string;
  dataTypeID: number;
}

export interface QueryResult<Row = unknown> {
  rows: Row[];
  fields: Field[];
  affectedRows?: number;
}

/** An error as it crossed: its message and every own property the driver set (code, detail, constraint…). */
export interface WireError {
  message: string;
  properties: Record<string, unknown>;
}

/** Answers carry their request's id; id 0 answers the start-up (PGlite is open), asked by no request. */
export type Reply =
  | { kind: 'reply'; id: number; ok: true; value: unknown }
  | { kind: 'reply'; id: number; ok: false; error: WireError }
  | { kind: 'notification'; subscription: number; payload: string };

export interface WorkerData {
  /** A directory for the database files, or undefined to keep it in memory. */
  dataDir: string | undefined;
}
