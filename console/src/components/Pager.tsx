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

/** The cursors of the pages seen so far: index 0 is the first page (no cursor). */
export function nextCursors(cursors: Array<string | undefined>, next: string | null | undefined) {
  return next ? [...cursors, next] : cursors;
}
