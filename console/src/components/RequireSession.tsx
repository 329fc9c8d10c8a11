import type { ReactNode } from 'react';
import { Navigate, useLocation } from 'react-router';
import { useSession } from '../session.js';
import { sessionEnded } from '../session-ended.js';
import { PageSkeleton } from './PageSkeleton.js';

/** Pages of the organization: signed out, the person signs in first and comes back here. */
export function RequireSession({ children }: { children: ReactNode }) {
  const session = useSession();
  const location = useLocation();
  if (session.isPending) {
    return (
      <section className="page" aria-busy="true">
        <PageSkeleton heading />
      </section>
    );
  }
  if (!session.data) {
    // The same URL as the MutationCache's redirect when the session just ended (session-ended.ts).
    const expired = sessionEnded() ? 'expired=1&' : '';
    return (
      <Navigate
        to={`/sign-in?${expired}next=${encodeURIComponent(location.pathname + location.search)}`}
        replace
      />
    );
  }
  return <>{children}</>;
}
