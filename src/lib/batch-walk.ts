/**
 * Visits rows in key order after a cursor, `batchSize` at a time, until `budget` rows were visited or none
 * are left: the walk each module's share of `cadre admin rotate-encryption-key` makes over its own table.
 * `visit` answers how many rows it rewrote (0 when a guarded update lost to a concurrent change).
 */
export async function walkInBatches<Row>(input: {
  budget: number;
  batchSize: number;
  next: (cursor: string, limit: number) => Promise<Row[]>;
  keyOf: (row: Row) => string;
  visit: (row: Row) => Promise<number>;
}): Promise<{ visited: number; rewritten: number }> {
  let visited = 0;
  let rewritten = 0;
  let cursor = '';
  while (visited < input.budget) {
    const rows = await input.next(cursor, Math.min(input.batchSize, input.budget - visited));
    if (rows.length === 0) break;
    for (const row of rows) {
      visited += 1;
      cursor = input.keyOf(row);
      rewritten += await input.visit(row);
    }
  }
  return { visited, rewritten };
}
