import { useQuery } from '@tanstack/react-query';
import { Link } from 'react-router';
import { api, unwrap } from '../api/client.js';
import { ErrorNotice } from '../components/ErrorNotice.js';
import { PageSkeleton } from '../components/PageSkeleton.js';
import { When } from '../components/When.js';
import { useCan, useSession } from '../session.js';
import { actionWords, actorWords, changeSentences, targetLink, targetName } from './audit-words.js';

/** How many of the newest audit records Home shows: a glance, the audit log has the rest. */
const RECENT = 5;

/**
 * The organization's last few changes in words, as the audit log says them (who, what, on which record by
 * name and linked, when), for those who may read the audit log; nothing at all for the others.
 */
export function RecentActivity() {
  const can = useCan();
  const session = useSession();
  const org = session.data?.organization.slug ?? '';
  const allowed = can('audit:read');
  const events = useQuery({
    queryKey: ['audit', org, 'recent'],
    enabled: allowed && Boolean(org),
    queryFn: async ({ signal }) =>
      unwrap(
        await api.GET('/api/v1/organizations/{org}/audit-events', {
          params: { path: { org }, query: { limit: RECENT } },
          signal,
        }),
      ).data,
  });
  if (!allowed) return null;
  return (
    <section aria-labelledby="recent-activity" aria-busy={events.isLoading}>
      <h2 id="recent-activity">Recent activity</h2>
      <ErrorNotice error={events.error} retry={events.refetch} />
      {events.isLoading ? (
        <PageSkeleton lines={3} />
      ) : events.data?.length === 0 ? (
        <p className="card attention-empty">Nothing has changed in this organization yet.</p>
      ) : (
        events.data && (
          <>
            <ul className="activity-list">
              {events.data.map((event) => {
                const link = targetLink(event);
                const name = targetName(event);
                // The first change said in words, if any: the side panel of the audit log has them all.
                const change = changeSentences(event)[0];
                return (
                  <li key={event.id}>
                    <span>
                      {actionWords(event.action)}:{' '}
                      {link && event.target.name ? <Link to={link}>{name}</Link> : name}
                      {change ? ` (${change})` : ''}
                    </span>
                    <span className="muted small">
                      {actorWords(event).name} · <When at={event.createdAt} />
                    </span>
                  </li>
                );
              })}
            </ul>
            <p className="small">
              <Link to="/audit">The whole audit log</Link>
            </p>
          </>
        )
      )}
    </section>
  );
}
