import { Column, is, noopDecoder, type Query, SQL } from 'drizzle-orm';
import type { Db } from './client.js';

/** What a flat selection holds: columns (a table's or a subquery's) and SQL expressions, aliased or not. */
export type SelectedField = Column | SQL | SQL.Aliased;

type Decode = (value: unknown) => unknown;

/**
 * The decoder drizzle itself would use for `field` (its column type's, or an expression's `mapWith`), or
 * undefined when the value is kept as the driver gives it.
 */
function decoderOf(field: SelectedField): Decode | undefined {
  if (is(field, Column)) {
    // A subquery's column is a proxy of its table's: read the method once, through it, and keep it bound.
    const decode = field.mapFromDriverValue;
    return decode === Column.prototype.mapFromDriverValue ? undefined : decode.bind(field);
  }
  // `decoder` is how drizzle keeps an expression's `mapWith`; the parity test pins it (decoded-rows.test.ts).
  const { decoder } = (is(field, SQL) ? field : field.sql) as unknown as {
    decoder: { mapFromDriverValue: Decode };
  };
  return decoder === noopDecoder ? undefined : (value) => decoder.mapFromDriverValue(value);
}

/**
 * Decodes one row given as an array into an object keyed like `fields`, each value as drizzle decodes it;
 * `from` is the position of the first of them (a statement may lead with columns of its own).
 */
export function rowDecoder<Row>(fields: Record<string, SelectedField>, from = 0) {
  const keys = Object.keys(fields);
  const decoders = keys.map((key) => decoderOf(fields[key]!));
  return (values: readonly unknown[]): Row => {
    const row: Record<string, unknown> = {};
    for (let column = 0; column < keys.length; column++) {
      const value = values[from + column];
      const decode = decoders[column];
      row[keys[column]!] = value === null || decode === undefined ? value : decode(value);
    }
    return row as Row;
  };
}

/**
 * A named prepared select whose rows come back as arrays, handed to `map` as they are. Drizzle's own
 * mapping works out each field's kind for every value of every row (prototype walks, through a proxy for a
 * subquery's columns): 10 % of the CPU of an audit page request (bench/README.md, "Where the time
 * went"); a `rowDecoder` works that out once.
 */
export function prepareArrays<Result>(
  db: Db,
  name: string,
  query: { toSQL(): Query },
  map: (rows: unknown[][]) => Result,
): { execute(values: Record<string, unknown>): Promise<Result> } {
  // The session's own prepared query (named, parsed once per connection), given `map` as its result
  // mapper: drizzle's hook for results it does not map itself.
  const prepared = db._.session.prepareQuery(query.toSQL(), undefined, name, true, (rows) =>
    map(rows as unknown[][]),
  );
  return { execute: (values) => prepared.execute(values) as Promise<Result> };
}

/** `prepareArrays` with each row decoded into an object; `fields` is the select's own selection, in order. */
export function prepareDecoded<Row>(
  db: Db,
  name: string,
  query: { toSQL(): Query },
  fields: Record<string, SelectedField>,
) {
  const decode = rowDecoder<Row>(fields);
  return prepareArrays(db, name, query, (rows) => rows.map(decode));
}
