import { timestamp } from 'drizzle-orm/pg-core';

/** A `timestamptz` column read and written as a JS Date: every time column of every table. */
export const at = (name: string) => timestamp(name, { withTimezone: true, mode: 'date' });
