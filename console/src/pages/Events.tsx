import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { Fragment, useState } from 'react';
import { useSearchParams } from 'react-router';
import { api, unwrap } from '../api/client.js';
import type { components } from '../api/schema.js';
import { ErrorNotice } from '../components/ErrorNotice.js';
import { PageHeader } from '../components/PageHeader.js';
import { Pager, useCursors } from '../components/Pager.js';
import { PageSkeleton } from '../components/PageSkeleton.js';
import { TableScroll } from '../components/TableScroll.js';
import { When } from '../components/When.js';
import { useCan, useMe } from '../session.js';
import { ACTOR_WORDS, EventDetails } from './event-details.js';
import { RecordName, useEventRecords } from './event-records.js';
import { EVENT_GROUPS, eventWords } from './event-words.js';

type Event = components['schemas']['Event'];

/**
 * An event's type, which may break after a dot (`webhook_endpoint.` / `disabled`) and nowhere else: unbroken,
 * the longest types widened the column until the Details buttons left the table at 1280 px.
 */
function EventTypeCode({ type }: { type: string }) {
  const [first, ...rest] = type.split('.');
  // Each piece keyed by the type up to it (unique within the type).
  const pieces = rest.map((part, at) => ({ part, upTo: [first, ...rest.slice(0, at + 1)].join('.') }));
  return (
    <code className="small">
      {first}
      {pieces.map(({ part, upTo }) => (
        <Fragment key={upTo}>
          .<wbr />
          {part}
        </Fragment>
      ))}
    </code>
  );
}
type Order = 'newest' | 'oldest';
const PAGE = 25;

/** The same events webhooks deliver, for reading (owners and admins: events:read); payloads as JSON text. */
export function Events() {
  const me = useMe();
  const can = useCan();
  const canRead = can('events:read');
  const canSend = can('webhooks:manage');
  // The filters live in the address, so a filtered list can be linked and survives a reload.
  const [params, setParams] = useSearchParams();
  const asked = params.get('type') ?? '';
  const type = EVENT_GROUPS.some((group) => group.types.some((t) => t === asked)) ? asked : '';
  const order: Order = params.get('order') === 'oldest' ? 'oldest' : 'newest';
  const filter = (next: { type: string; order: Order }) =>
    setParams(
      {
        ...(next.type ? { type: next.type } : {}),
        ...(next.order === 'oldest' ? { order: 'oldest' } : {}),
      },
      { replace: true },
    );
  const { cursor, pagerProps, reset } = useCursors();
  const events = useQuery({
    queryKey: ['events', type, order, cursor],
    enabled: canRead,
    queryFn: async ({ signal }) =>
      unwrap(
        await api.GET('/api/v1/events', {
          params: {
            query: { limit: PAGE, order, ...(type ? { type } : {}), ...(cursor ? { cursor } : {}) },
          },
          signal,
        }),
      ),
    placeholderData: keepPreviousData,
  });
  // The enabled endpoints an event can be sent to (a disabled one is sent nothing).
  const endpoints = useQuery({
    queryKey: ['webhook-endpoints'],
    enabled: canSend,
    queryFn: async ({ signal }) => unwrap(await api.GET('/api/v1/webhook-endpoints', { signal })).data,
  });
  const targets = (endpoints.data ?? []).filter((endpoint) => endpoint.enabled);
  const recordOf = useEventRecords(canRead);
  const list = events.data?.data ?? [];
  const [open, setOpen] = useState<Event | null>(null);
  return (
    <section className="page">
      <PageHeader title="Events">
        Every change Cadre tells your webhooks about, with its payload as delivered. Scripts read the same
        list from <code>GET /api/v1/events</code>.
      </PageHeader>
      {me.isPending && <PageSkeleton />}
      {me.data && !canRead && (
        <p className="notice">
          Events tell about everything in {me.data.organization.name} (members, keys, billing), so only owners
          and admins read them.
        </p>
      )}
      {canRead && (
        <div className="filters">
          <div className="field">
            <label htmlFor="events-type">Type</label>
            <select
              id="events-type"
              value={type}
              onChange={(event) => {
                filter({ type: event.target.value, order });
                reset();
              }}
            >
              <option value="">Any type</option>
              {EVENT_GROUPS.map((group) => (
                <optgroup key={group.key} label={group.label}>
                  {group.types.map((t) => (
                    <option key={t} value={t}>
                      {eventWords(t)}
                    </option>
                  ))}
                </optgroup>
              ))}
            </select>
          </div>
          <div className="field">
            <label htmlFor="events-order">Order</label>
            <select
              id="events-order"
              value={order}
              onChange={(event) => {
                filter({ type, order: event.target.value as Order });
                reset();
              }}
            >
              <option value="newest">Newest first</option>
              <option value="oldest">Oldest first</option>
            </select>
          </div>
        </div>
      )}
      <ErrorNotice error={events.error} retry={events.refetch} />
      {canRead && events.isPending && <PageSkeleton />}
      {events.data && list.length === 0 && (
        <div className="empty card">
          <p>
            {type
              ? `No “${eventWords(type)}” event yet.`
              : 'No events yet. They appear here as your organization changes: a version published, a member joined, a key created.'}
          </p>
        </div>
      )}
      {list.length > 0 && (
        <TableScroll label="Events">
          <table className="table">
            <caption className="visually-hidden">Events</caption>
            <thead>
              <tr>
                <th scope="col">When</th>
                <th scope="col">Event</th>
                <th scope="col">On</th>
                <th scope="col">By</th>
                <th scope="col">Id</th>
                <th scope="col">
                  <span className="visually-hidden">Details</span>
                </th>
              </tr>
            </thead>
            <tbody>
              {list.map((event) => (
                <tr key={event.id}>
                  <th scope="row" className="audit-when">
                    <When at={event.createdAt} />
                  </th>
                  <td data-label="Event" className="event-type">
                    {eventWords(event.type)} <EventTypeCode type={event.type} />
                  </td>
                  <td data-label="On" className="event-on break-anywhere">
                    <RecordName record={recordOf(event)} />
                  </td>
                  <td data-label="By" className="event-by">
                    {ACTOR_WORDS[event.actor.kind]}
                  </td>
                  <td data-label="Id" className="event-id-cell break-anywhere">
                    <code className="small">{event.id}</code>
                  </td>
                  <td>
                    <button
                      type="button"
                      className="button button-small"
                      aria-label={`Details: ${eventWords(event.type)}, ${event.id}`}
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
      <EventDetails
        event={open}
        record={open ? recordOf(open) : null}
        endpoints={targets}
        onClose={() => setOpen(null)}
      />
    </section>
  );
}
