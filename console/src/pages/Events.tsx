import { keepPreviousData, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { type FormEvent, useState } from 'react';
import { Link, useSearchParams } from 'react-router';
import { api, unwrap } from '../api/client.js';
import type { components } from '../api/schema.js';
import { ErrorNotice } from '../components/ErrorNotice.js';
import { PageHeader } from '../components/PageHeader.js';
import { Pager, useCursors } from '../components/Pager.js';
import { PageSkeleton } from '../components/PageSkeleton.js';
import { ScrollableCode } from '../components/ScrollableCode.js';
import { When } from '../components/When.js';
import { useCan, useMe } from '../session.js';
import { EVENT_GROUPS, eventWords } from './event-words.js';
import { type Endpoint, endpointName } from './webhook-parts.js';

type Event = components['schemas']['Event'];
type Order = 'newest' | 'oldest';
const PAGE = 25;

const ACTOR_WORDS: Record<Event['actor']['kind'], string> = {
  apiKey: 'through an API key',
  session: 'in the console',
  admin: 'by the operator',
  system: 'by Cadre',
};

/**
 * Sends one event to an endpoint (again, or for the first time: any type, any age), as "Resend" does on the
 * endpoint's page; the answer's delivery carries the same webhook-id as an earlier delivery of it there.
 */
function SendToEndpoint({ event, endpoints }: { event: Event; endpoints: Endpoint[] }) {
  const client = useQueryClient();
  const [endpointId, setEndpointId] = useState(endpoints[0]?.id ?? '');
  const send = useMutation({
    mutationFn: async () =>
      unwrap(
        await api.POST('/api/v1/webhook-endpoints/{webhookEndpointId}/resend', {
          params: { path: { webhookEndpointId: endpointId } },
          body: { eventId: event.id },
        }),
      ),
    onSuccess: () => client.invalidateQueries({ queryKey: ['webhook-deliveries', endpointId] }),
  });
  const submit = (e: FormEvent) => {
    e.preventDefault();
    send.mutate();
  };
  const id = `send-${event.id}`;
  const target = endpoints.find((endpoint) => endpoint.id === endpointId);
  return (
    <form className="send-event" onSubmit={submit} aria-label={`Send ${event.id} to an endpoint`}>
      <label htmlFor={id} className="small">
        Send to
      </label>
      <select
        id={id}
        value={endpointId}
        onChange={(e) => {
          setEndpointId(e.target.value);
          send.reset();
        }}
      >
        {endpoints.map((endpoint) => (
          <option key={endpoint.id} value={endpoint.id}>
            {endpointName(endpoint)}
          </option>
        ))}
      </select>
      <button type="submit" className="button button-small" disabled={send.isPending}>
        {send.isPending ? 'Sending…' : 'Send'}
      </button>
      <span className="small" role="status">
        {send.isSuccess && target && (
          <>
            Queued: see <Link to={`/developers/webhooks/${target.id}`}>its deliveries</Link>.
          </>
        )}
      </span>
      <ErrorNotice error={send.error} />
    </form>
  );
}

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
  const list = events.data?.data ?? [];
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
        <ol className="event-list" aria-label="Events">
          {list.map((event) => (
            <li key={event.id} className="card event">
              <div className="row space-between">
                <h2 className="event-title">
                  {eventWords(event.type)} <code className="small">{event.type}</code>
                </h2>
                <span className="small muted">
                  <When at={event.createdAt} />
                </span>
              </div>
              <p className="small muted break-anywhere">
                {event.resource.type} <code>{event.resource.id}</code> · {ACTOR_WORDS[event.actor.kind]} · id{' '}
                <code>{event.id}</code>
              </p>
              <details>
                <summary>Payload</summary>
                <ScrollableCode label={`Payload of ${event.id}`} className="code payload">
                  {JSON.stringify(event.data, null, 2)}
                </ScrollableCode>
              </details>
              {targets.length > 0 && <SendToEndpoint event={event} endpoints={targets} />}
            </li>
          ))}
        </ol>
      )}
      <Pager {...pagerProps(events.data?.pagination)} />
    </section>
  );
}
