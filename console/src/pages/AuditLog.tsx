import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { type FormEvent, useState } from 'react';
import { Link } from 'react-router';
import { api, unwrap } from '../api/client.js';
import type { components } from '../api/schema.js';
import { ErrorNotice } from '../components/ErrorNotice.js';
import { PageHeader } from '../components/PageHeader.js';
import { Pager, useCursors } from '../components/Pager.js';
import { TableScroll } from '../components/TableScroll.js';
import { DayAndTime } from '../components/When.js';
import { formatDateTime } from '../format.js';
import { useSession } from '../session.js';
import { AuditDetails } from './audit-details.js';
import {
  AUDIT_ACTIONS,
  actionWords,
  actorWords,
  changeSentences,
  TARGET_WORDS,
  targetLink,
  targetName,
} from './audit-words.js';

type AuditEvent = components['schemas']['AuditEvent'];
interface Filters {
  action: string;
  actor: string;
  /** Days (yyyy-mm-dd) in the viewer's time zone, both included. */
  from: string;
  to: string;
}
const NO_FILTERS: Filters = { action: '', actor: '', from: '', to: '' };

/** The API's query for the filters: the days become instants of the viewer's own midnight. */
function queryOf(filters: Filters): Record<string, string> {
  const query: Record<string, string> = {};
  if (filters.action) query.action = filters.action;
  if (filters.actor) query.actor = filters.actor;
  if (filters.from) query.from = new Date(`${filters.from}T00:00:00`).toISOString();
  if (filters.to) {
    const end = new Date(`${filters.to}T00:00:00`);
    end.setDate(end.getDate() + 1);
    query.to = end.toISOString();
  }
  return query;
}

function Who({ event }: { event: AuditEvent }) {
  const { name, how } = actorWords(event);
  return (
    <>
      {name}
      <span className="cell-note">{how}</span>
    </>
  );
}

function On({ event }: { event: AuditEvent }) {
  const link = targetLink(event);
  const name = targetName(event);
  return (
    <>
      {link && event.target.name ? <Link to={link}>{name}</Link> : name}
      <span className="cell-note">{TARGET_WORDS[event.target.type] ?? event.target.type}</span>
    </>
  );
}

const PAGE = 25;

/** Who did what, when, from which credential: owners and admins (audit:read). */
export function AuditLog() {
  const session = useSession();
  const org = session.data?.organization.slug ?? '';
  const [filters, setFilters] = useState<Filters>(NO_FILTERS);
  const [draft, setDraft] = useState<Filters>(NO_FILTERS);
  const [open, setOpen] = useState<AuditEvent | null>(null);
  const { cursor, pagerProps, reset } = useCursors();
  const query = queryOf(filters);
  const events = useQuery({
    queryKey: ['audit', org, filters, cursor],
    enabled: Boolean(org),
    queryFn: async ({ signal }) =>
      unwrap(
        await api.GET('/api/v1/organizations/{org}/audit-events', {
          params: { path: { org }, query: { limit: PAGE, ...(cursor ? { cursor } : {}), ...query } },
          signal,
        }),
      ),
    placeholderData: keepPreviousData,
  });
  // The people who can have done something: the actor filter lists them by name.
  const members = useQuery({
    queryKey: ['audit-members', org],
    enabled: Boolean(org),
    queryFn: async () =>
      unwrap(
        await api.GET('/api/v1/organizations/{org}/members', {
          params: { path: { org }, query: { limit: 100 } },
        }),
      ).data,
    staleTime: 60_000,
  });
  const apply = (event: FormEvent) => {
    event.preventDefault();
    setFilters(draft);
    reset();
  };
  const exportUrl = (format: 'csv' | 'ndjson') =>
    `/api/v1/organizations/${encodeURIComponent(org)}/audit-events/export?${new URLSearchParams({ format, ...query })}`;
  const filtered = Object.values(filters).some(Boolean);
  const list = events.data?.data ?? [];
  return (
    <section className="page">
      <PageHeader title="Audit log">Every change to your organization, newest first.</PageHeader>
      <form className="filters" onSubmit={apply} aria-label="Filter the audit log">
        <div className="field">
          <label htmlFor="audit-action">Action</label>
          <select
            id="audit-action"
            value={draft.action}
            onChange={(e) => setDraft({ ...draft, action: e.target.value })}
          >
            <option value="">Any action</option>
            {AUDIT_ACTIONS.map((group) => (
              <optgroup key={group.label} label={group.label}>
                {group.actions.map(([action, words]) => (
                  <option key={action} value={action}>
                    {words}
                  </option>
                ))}
              </optgroup>
            ))}
          </select>
        </div>
        <div className="field">
          <label htmlFor="audit-actor">Who</label>
          <select
            id="audit-actor"
            value={draft.actor}
            onChange={(e) => setDraft({ ...draft, actor: e.target.value })}
          >
            <option value="">Anyone</option>
            {(members.data ?? []).map((member) => (
              <option key={member.userId} value={member.userId}>
                {member.name ?? member.email ?? member.userId}
              </option>
            ))}
          </select>
        </div>
        <div className="field">
          <label htmlFor="audit-from">From</label>
          <input
            id="audit-from"
            type="date"
            value={draft.from}
            max={draft.to || undefined}
            onChange={(e) => setDraft({ ...draft, from: e.target.value })}
          />
        </div>
        <div className="field">
          <label htmlFor="audit-to">To</label>
          <input
            id="audit-to"
            type="date"
            value={draft.to}
            min={draft.from || undefined}
            onChange={(e) => setDraft({ ...draft, to: e.target.value })}
          />
        </div>
        {/* Together: on a narrow row both move to the next line, never Clear alone. */}
        <div className="actions">
          <button type="submit" className="button">
            Filter
          </button>
          {filtered && (
            <button
              type="button"
              className="button"
              onClick={() => {
                setDraft(NO_FILTERS);
                setFilters(NO_FILTERS);
                reset();
              }}
            >
              Clear
            </button>
          )}
        </div>
      </form>
      {!events.isError && (
        <p className="actions wrap small">
          Download {filtered ? 'these events' : 'the whole log'}:{' '}
          <a className="button button-small" href={exportUrl('csv')} download>
            CSV
          </a>{' '}
          <a className="button button-small" href={exportUrl('ndjson')} download>
            NDJSON
          </a>
        </p>
      )}
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
          <p>No events{filtered ? ' match these filters' : ' yet'}.</p>
        </div>
      )}
      {list.length > 0 && (
        <TableScroll label="Audit events">
          <table className="table">
            <caption className="visually-hidden">Audit events</caption>
            <thead>
              <tr>
                <th scope="col">When</th>
                <th scope="col">What</th>
                <th scope="col">Who</th>
                <th scope="col">On</th>
                <th scope="col">
                  <span className="visually-hidden">Details</span>
                </th>
              </tr>
            </thead>
            <tbody>
              {list.map((event) => (
                <tr key={event.id}>
                  <th scope="row" className="audit-when">
                    <time dateTime={event.createdAt}>
                      <DayAndTime at={event.createdAt} />
                    </time>
                  </th>
                  <td>
                    {actionWords(event.action)}
                    {changeSentences(event)
                      .slice(0, 3)
                      .map((line) => (
                        <span key={line} className="cell-note">
                          {line}
                        </span>
                      ))}
                  </td>
                  <td data-label="Who">
                    <Who event={event} />
                  </td>
                  <td data-label="On">
                    <On event={event} />
                  </td>
                  <td>
                    <button
                      type="button"
                      className="button button-small"
                      aria-label={`Details: ${actionWords(event.action)}, ${formatDateTime(event.createdAt)}`}
                      onClick={() => setOpen(event)}
                    >
                      Details
                    </button>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </TableScroll>
      )}
      <Pager {...pagerProps(events.data?.pagination)} />
      <AuditDetails event={open} onClose={() => setOpen(null)} />
    </section>
  );
}
