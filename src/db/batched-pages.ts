import { getTableColumns, is, type SQL, sql, Table } from 'drizzle-orm';
import type { PgTable, SubqueryWithSelection } from 'drizzle-orm/pg-core';
import { batchedReads } from './batched-reads.js';
import type { Db } from './client.js';
import { prepareArrays, rowDecoder, type SelectedField } from './decoded-rows.js';

/**
 * A caller's value as a page's LIMIT: drizzle types `.limit()` for numbers and placeholders only, and renders
 * any SQL given to it, a caller's column included.
 */
export const asLimit = (value: SQL): number => value as unknown as number;

/** What each caller gives a page: its values, by the column names of `callers`. */
type CallerTypes = Record<string, 'text' | 'int' | 'bigint' | 'timestamptz'>;
type CallerValues<C extends CallerTypes> = { [K in keyof C]: unknown };

interface PageDefinition {
  /** The page of one caller, reading that caller's values through `caller(name)` (a LATERAL reference). */
  // biome-ignore lint/suspicious/noExplicitAny: a subquery of any selection; its fields are picked by `fields`.
  subquery: SubqueryWithSelection<any, 'page'>;
  /** The page's columns, as the subquery exposes them (`page.id`…): what each row carries. */
  fields: Record<string, SelectedField>;
  /** The page's order, on the subquery's columns: rows come back per caller in this order. */
  order: SQL[];
}

/**
 * The pages many callers asked for in one event-loop turn, as one statement: the callers' values go as
 * arrays, `unnest(…) WITH ORDINALITY` makes a row per caller, and each caller's page is a LATERAL subquery
 * over its row (an index range read per caller, as its own query would be). Each caller gets its own page, in
 * its own order. Prepared once under `name`, batched like the single-row reads (./batched-reads.ts).
 */
export function batchedPages<C extends CallerTypes, Row>(
  { db, connections }: { db: Db; connections: number },
  name: string,
  callers: C,
  define: (caller: (column: keyof C & string) => SQL) => PageDefinition,
) {
  const columns = Object.keys(callers) as Array<keyof C & string>;
  const arrays = sql.join(
    columns.map((column) => sql`${sql.placeholder(column)}::${sql.raw(callers[column]!)}[]`),
    sql`, `,
  );
  const list = sql.raw([...columns, 'caller'].join(', '));
  const from = sql`unnest(${arrays}) WITH ORDINALITY AS callers(${list})`;
  // Column names are this module's own identifiers, never a caller's text.
  const page = define((column) => sql.raw(`callers.${column}`));
  const query = db
    .select({ caller: sql<number>`callers.caller`, ...page.fields })
    .from(from)
    .crossJoinLateral(page.subquery)
    .orderBy(sql`callers.caller`, ...page.order);
  // The caller's ordinal leads each row; the page's own columns follow it.
  const decode = rowDecoder<Row>(page.fields, 1);
  const statement = prepareArrays(db, name, query, (rows) => rows);

  const loader = batchedReads(async (asked: readonly CallerValues<C>[]) => {
    const values = Object.fromEntries(
      columns.map((column) => [column, asked.map((one) => one[column] ?? null)]),
    );
    const pages: Row[][] = asked.map(() => []);
    for (const row of await statement.execute(values)) pages[Number(row[0]) - 1]!.push(decode(row));
    return pages;
  }, connections);
  return (values: CallerValues<C>): Promise<Row[]> => loader.load(values);
}

/**
 * Every field of `selection` (a table's columns, or the object a page selects) as `subquery`, a page
 * selecting it, exposes it.
 */
export function columnsOf<Selection extends Record<string, unknown>>(
  // biome-ignore lint/suspicious/noExplicitAny: any subquery selecting the whole of `selection`.
  subquery: SubqueryWithSelection<any, 'page'>,
  selection: PgTable | Selection,
): Record<keyof Selection & string, SelectedField> {
  const keys = Object.keys(is(selection, Table) ? getTableColumns(selection) : selection);
  const exposed = subquery as unknown as Record<string, SelectedField>;
  return Object.fromEntries(keys.map((key) => [key, exposed[key]!])) as Record<
    keyof Selection & string,
    SelectedField
  >;
}
