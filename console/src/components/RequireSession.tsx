import type { ReactNode } from 'react';
import { Navigate, useLocation } from 'react-router';
import { useSession } from '../session.js';

/** Pages of the organization: signed out, the person signs in first and comes back here. */
export function RequireSession({ children }: { children: ReactNode }) {
  const session = useSession();
  const location = useLocation();
  if (session.isPending) {
    return (
      <p className="muted" aria-busy="true">
        Loading…
      </p>
    );
  }
  if (!session.data) {
    return (
      <Navigate to={`/sign-in?next=${encodeURIComponent(location.pathname + location.search)}`} replace />
    );
  }
  return <>{children}</>;
}
