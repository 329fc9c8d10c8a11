import { getTableColumns, type SQL, sql } from 'drizzle-orm';
import type { PgColumn, PgTable, SubqueryWithSelection } from 'drizzle-orm/pg-core';
import { batchedReads } from './batched-reads.js';
import type { Db } from './client.js';

/** What each caller gives a page: its values, by the column names of `callers`. */
type CallerTypes = Record<string, 'text' | 'int' | 'bigint' | 'timestamptz'>;
type CallerValues<C extends CallerTypes> = { [K in keyof C]: unknown };

interface PageDefinition {
  /** The page of one caller, reading that caller's values through `caller(name)` (a LATERAL reference). */
  // biome-ignore lint/suspicious/noExplicitAny: a subquery of any selection; its fields are picked by `fields`.
  subquery: SubqueryWithSelection<any, 'page'>;
  /** The page's columns, as the subquery exposes them (`page.id`…): what each row carries. */
  fields: Record<string, PgColumn | SQL.Aliased>;
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
  const statement = db
    .select({ caller: sql<number>`callers.caller`.mapWith(Number), ...page.fields })
    .from(from)
    .crossJoinLateral(page.subquery)
    .orderBy(sql`callers.caller`, ...page.order)
    .prepare(name);

  const loader = batchedReads(async (asked: readonly CallerValues<C>[]) => {
    const values = Object.fromEntries(
      columns.map((column) => [column, asked.map((one) => one[column] ?? null)]),
    );
    const rows = (await statement.execute(values)) as Array<{ caller: number } & Record<string, unknown>>;
    const pages: Row[][] = asked.map(() => []);
    for (const { caller, ...row } of rows) pages[caller - 1]!.push(row as Row);
    return pages;
  }, connections);
  return (values: CallerValues<C>): Promise<Row[]> => loader.load(values);
}

/** Every column of `table` as `subquery` (a page selecting the whole table) exposes it. */
export function columnsOf(
  // biome-ignore lint/suspicious/noExplicitAny: any subquery selecting the whole of `table`.
  subquery: SubqueryWithSelection<any, 'page'>,
  table: PgTable,
): Record<string, PgColumn> {
  const exposed = subquery as unknown as Record<string, PgColumn>;
  return Object.fromEntries(Object.keys(getTableColumns(table)).map((key) => [key, exposed[key]!]));
}
