/**
 * One page of a cursor-paged list, from `limit + 1` rows read (the extra row only says there is more): the
 * page's items, and the pagination every list of the management API answers (docs/api-keys.md, "Pages").
 */
export function cursorPage<Row, Item>(
  rows: Row[],
  limit: number,
  cursorOf: (last: Row) => string,
  present: (row: Row) => Item,
) {
  const shown = rows.slice(0, limit);
  const hasMore = rows.length > limit;
  const last = shown.at(-1);
  return {
    items: shown.map(present),
    pagination: { limit, hasMore, nextCursor: hasMore && last !== undefined ? cursorOf(last) : null },
  };
}
