import { useState } from 'react';

/** Cursor paging: forward with the answer's cursor, back through the cursors already seen. */
export function Pager(props: { page: number; hasMore: boolean; onPrevious: () => void; onNext: () => void }) {
  if (props.page === 1 && !props.hasMore) return null;
  return (
    <nav className="pager" aria-label="Pages">
      <button type="button" className="button" disabled={props.page <= 1} onClick={props.onPrevious}>
        Previous
      </button>
      <span>Page {props.page}</span>
      <button type="button" className="button" disabled={!props.hasMore} onClick={props.onNext}>
        Next
      </button>
    </nav>
  );
}

/**
 * Where a cursor-paged list is: the cursors of the pages seen so far (the first page has none), so Previous
 * goes back through them and Next follows the answer's `nextCursor`.
 */
export function useCursors() {
  const [cursors, setCursors] = useState<Array<string | undefined>>([undefined]);
  return {
    cursor: cursors[cursors.length - 1],
    pagerProps: (pagination: { hasMore: boolean; nextCursor: string | null } | undefined) => ({
      page: cursors.length,
      hasMore: pagination?.hasMore ?? false,
      onPrevious: () => setCursors(cursors.slice(0, -1)),
      onNext: () => {
        const next = pagination?.nextCursor;
        if (next) setCursors([...cursors, next]);
      },
    }),
    reset: () => setCursors([undefined]),
  };
}
