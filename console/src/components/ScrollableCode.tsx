import type { ReactNode } from 'react';

/**
 * Preformatted text that may scroll (a long line, a long instruction). A scrolling region must be reachable
 * with the keyboard, so it takes focus and is named for screen readers.
 */
export function ScrollableCode({
  label,
  className,
  children,
}: {
  label: string;
  className: string;
  children: ReactNode;
}) {
  return (
    // biome-ignore lint/a11y/noNoninteractiveTabindex: a scrollable region must be keyboard-focusable to be scrolled
    <section className={`scrollable ${className}`} aria-label={label} tabIndex={0}>
      <pre>{children}</pre>
    </section>
  );
}
