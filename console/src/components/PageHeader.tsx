import type { ReactNode } from 'react';

/**
 * Every page's header, one pattern (docs/console.md, "The shell"): the title (the page's one `h1`, which
 * takes focus on a change of page), one line on what the page is for, and the page's main action in one
 * place — to the right of the title on a wide screen, under it on a phone.
 */
export function PageHeader({
  title,
  children,
  action,
}: {
  title: ReactNode;
  /** The one-line purpose. */
  children?: ReactNode;
  action?: ReactNode;
}) {
  return (
    <div className="page-header">
      <div className="page-header-text">
        <h1 tabIndex={-1}>{title}</h1>
        {children && <p className="page-purpose">{children}</p>}
      </div>
      {action && <div className="page-header-action">{action}</div>}
    </div>
  );
}
