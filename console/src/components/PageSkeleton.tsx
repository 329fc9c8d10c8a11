/**
 * What a page shows while its data loads: grey blocks where its heading and cards will be, so the layout
 * does not jump when the answer arrives. Screen readers hear "Loading" once (the blocks are hidden).
 */
export function PageSkeleton({ heading = false }: { heading?: boolean }) {
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
