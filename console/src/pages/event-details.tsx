import { useMutation, useQueryClient } from '@tanstack/react-query';
import { type FormEvent, useState } from 'react';
import { Link } from 'react-router';
import { api, unwrap } from '../api/client.js';
import type { components } from '../api/schema.js';
import { CopyButton } from '../components/CopyButton.js';
import { ErrorNotice } from '../components/ErrorNotice.js';
import { useModalDialog } from '../components/modal-dialog.js';
import { ScrollableCode } from '../components/ScrollableCode.js';
import { formatDateTime } from '../format.js';
import { type EventRecord, RecordName } from './event-records.js';
import { eventWords } from './event-words.js';
import { type Endpoint, endpointName } from './webhook-parts.js';

type Event = components['schemas']['Event'];

export const ACTOR_WORDS: Record<Event['actor']['kind'], string> = {
  // A no-break space: a narrow column breaks the words as "through an / API key", never "API / key".
  apiKey: 'through an API\u00a0key',
  session: 'in the console',
  admin: 'by the operator',
  system: 'by Cadre',
  scim: 'by SCIM provisioning',
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

/**
 * One event in full, as a side panel (the browser's modal <dialog>, as the audit log's details: focus moves
 * into it, Escape closes it and focus returns to the row's Details button): what happened, when, on what and
 * by whom, the ids an API user copies, the payload as delivered, and sending it to an endpoint.
 */
export function EventDetails({
  event,
  record,
  endpoints,
  onClose,
}: {
  event: Event | null;
  record: EventRecord | null;
  endpoints: Endpoint[];
  onClose: () => void;
}) {
  const ref = useModalDialog(event !== null);
  return (
    <dialog ref={ref} className="dialog side-panel" aria-labelledby="event-details-title" onClose={onClose}>
      {event && (
        <>
          <div className="side-panel-head">
            <h2 id="event-details-title">{eventWords(event.type)}</h2>
            <button type="button" className="button" onClick={onClose}>
              Close
            </button>
          </div>
          <p className="muted small">{formatDateTime(event.createdAt)}</p>
          <dl className="facts">
            <dt>Type</dt>
            <dd>
              <code>{event.type}</code>
            </dd>
            <dt>By</dt>
            <dd>{ACTOR_WORDS[event.actor.kind]}</dd>
            <dt>On</dt>
            <dd className="copyable">
              {record && <RecordName record={record} />} <code>{event.resource.id}</code>{' '}
              <CopyButton text={event.resource.id} label="Copy id" context="of the record" />
            </dd>
            <dt>Event id</dt>
            <dd className="copyable">
              <code className="event-id">{event.id}</code>{' '}
              <CopyButton text={event.id} label="Copy id" context="of the event" />
            </dd>
          </dl>
          <h3>Payload</h3>
          <ScrollableCode label={`Payload of ${event.id}`} className="code payload">
            {JSON.stringify(event.data, null, 2)}
          </ScrollableCode>
          {endpoints.length > 0 && <SendToEndpoint event={event} endpoints={endpoints} />}
        </>
      )}
    </dialog>
  );
}
