import { sql } from 'drizzle-orm';
import { type AnyPgColumn, timestamp } from 'drizzle-orm/pg-core';

/** A `timestamptz` column read and written as a JS Date: every time column of every table. */
export const at = (name: string) => timestamp(name, { withTimezone: true, mode: 'date' });

/**
 * A time as answers write it (ISO 8601, UTC, milliseconds, as `toISOString` does), formatted by PostgreSQL:
 * for lists, which made a Date per row from text only to turn it back into text (docs/performance.md).
 */
export const isoText = (column: AnyPgColumn) =>
  sql<string>`to_char(${column} AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`;
