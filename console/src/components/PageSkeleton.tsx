/**
 * What a page shows while its data loads: grey blocks where its heading and cards will be, so the layout
 * does not jump when the answer arrives. Screen readers hear "Loading" once (the blocks are hidden).
 * `lines` is the small form for a part of a page (a card's list, a form's choices): grey lines only.
 */
export function PageSkeleton({ heading = false, lines }: { heading?: boolean; lines?: number }) {
  if (lines !== undefined) {
    return (
      <div className="skeleton">
        <span className="visually-hidden" role="status">
          Loading
        </span>
        {Array.from({ length: lines }, (_, index) => (
          // biome-ignore lint/suspicious/noArrayIndexKey: identical placeholder lines, never reordered
          <div key={index} className="skeleton-block skeleton-line" aria-hidden="true" />
        ))}
      </div>
    );
  }
  return (
    <div className="skeleton">
      <span className="visually-hidden" role="status">
        Loading
      </span>
      {heading && <div className="skeleton-block skeleton-heading" aria-hidden="true" />}
      <div className="skeleton-block skeleton-line" aria-hidden="true" />
      <div className="skeleton-block skeleton-card" aria-hidden="true" />
      <div className="skeleton-block skeleton-card" aria-hidden="true" />
    </div>
  );
}
