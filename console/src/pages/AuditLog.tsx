import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { type FormEvent, useState } from 'react';
import { api, unwrap } from '../api/client.js';
import { ErrorNotice } from '../components/ErrorNotice.js';
import { Pager, useCursors } from '../components/Pager.js';
import { formatDateTime } from '../format.js';
import { useSession } from '../session.js';

const PAGE = 25;
const ACTOR_WORDS = {
  apiKey: 'API key',
  session: 'Console',
  admin: 'Operator',
  system: 'Cadre (payment provider)',
} as const;

/** Who did what, when, from which credential: owners and admins (audit:read). */
export function AuditLog() {
  const session = useSession();
  const org = session.data?.organization.slug ?? '';
  const [filters, setFilters] = useState({ action: '', actor: '' });
  const [draft, setDraft] = useState(filters);
  const { cursor, pagerProps, reset } = useCursors();
  const events = useQuery({
    queryKey: ['audit', org, filters, cursor],
    queryFn: async ({ signal }) =>
      unwrap(
        await api.GET('/api/v1/organizations/{org}/audit-events', {
          params: {
            path: { org },
            query: {
              limit: PAGE,
              ...(cursor ? { cursor } : {}),
              ...(filters.action ? { action: filters.action } : {}),
              ...(filters.actor ? { actor: filters.actor } : {}),
            },
          },
          signal,
        }),
      ),
    placeholderData: keepPreviousData,
  });
  const apply = (event: FormEvent) => {
    event.preventDefault();
    setFilters({ action: draft.action.trim(), actor: draft.actor.trim() });
    reset();
  };
  const list = events.data?.data ?? [];
  return (
    <section className="page">
      <div className="page-heading">
        <h1 tabIndex={-1}>Audit log</h1>
        <p className="muted">Every change to your organization, newest first.</p>
      </div>
      <form className="filters" onSubmit={apply}>
        <div className="field">
          <label htmlFor="audit-action">Action</label>
          <input
            id="audit-action"
            placeholder="api_key.created"
            value={draft.action}
            onChange={(e) => setDraft({ ...draft, action: e.target.value })}
          />
        </div>
        <div className="field">
          <label htmlFor="audit-actor">Actor (user or API key id)</label>
          <input
            id="audit-actor"
            value={draft.actor}
            onChange={(e) => setDraft({ ...draft, actor: e.target.value })}
          />
        </div>
        <button type="submit" className="button">
          Filter
        </button>
      </form>
      <ErrorNotice
        error={events.error}
        title={
          events.error && 'status' in events.error && events.error.status === 403
            ? 'Only owners and admins can read the audit log.'
            : undefined
        }
      />
      {!events.isPending && !events.isError && list.length === 0 && (
        <div className="empty card">
          <p>No events{filters.action || filters.actor ? ' match these filters' : ' yet'}.</p>
        </div>
      )}
      {list.length > 0 && (
        <div className="table-scroll">
          <table className="table">
            <caption className="visually-hidden">Audit events</caption>
            <thead>
              <tr>
                <th scope="col">When</th>
                <th scope="col">Action</th>
                <th scope="col">Who</th>
                <th scope="col">On</th>
              </tr>
            </thead>
            <tbody>
              {list.map((event) => (
                <tr key={event.id}>
                  <th scope="row">{formatDateTime(event.createdAt)}</th>
                  <td>
                    <code>{event.action}</code>
                  </td>
                  <td>
                    {ACTOR_WORDS[event.actor.kind]}
                    {event.actor.userId && (
                      <p className="small muted">
                        user <code>{event.actor.userId}</code>
                      </p>
                    )}
                    {event.actor.apiKeyId && (
                      <p className="small muted">
                        key <code>{event.actor.apiKeyId}</code>
                      </p>
                    )}
                  </td>
                  <td>
                    {event.target.type} <code>{event.target.id}</code>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      <Pager {...pagerProps(events.data?.pagination)} />
    </section>
  );
}
