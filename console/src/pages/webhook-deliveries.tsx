import { keepPreviousData, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useEffect, useRef, useState } from 'react';
import { api, unwrap } from '../api/client.js';
import type { components } from '../api/schema.js';
import { ErrorNotice } from '../components/ErrorNotice.js';
import { Pager, useCursors } from '../components/Pager.js';
import { ScrollableCode } from '../components/ScrollableCode.js';
import { TableScroll } from '../components/TableScroll.js';
import { When } from '../components/When.js';
import { eventWords } from './event-words.js';
import type { Endpoint } from './webhook-parts.js';

type Delivery = components['schemas']['WebhookDelivery'];
type Attempt = components['schemas']['WebhookDeliveryAttempt'];
type Status = Delivery['status'];

const PAGE = 20;
/** While a delivery is pending, the log asks again this often, so a test or resend shows its outcome. */
const REFRESH_MS = 3_000;

const STATUS: Record<Status, { label: string; className: string }> = {
  succeeded: { label: 'Delivered', className: 'badge badge-available' },
  pending: { label: 'Pending', className: 'badge badge-deprecated' },
  failed: { label: 'Failed', className: 'badge badge-disabled' },
};

/** One attempt in words: the answer's status (or why none came) and how long it took. */
function outcome(attempt: Attempt): string {
  const answer = attempt.statusCode !== null ? `HTTP ${attempt.statusCode}` : (attempt.error ?? 'no answer');
  const also = attempt.statusCode !== null && attempt.error ? ` (${attempt.error})` : '';
  return `${answer}${also} · ${attempt.latencyMs} ms`;
}

function Excerpt({ attempt, label }: { attempt: Attempt; label: string }) {
  if (!attempt.responseExcerpt) return <span className="muted small">no answer body</span>;
  return (
    <ScrollableCode label={label} className="code excerpt">
      {attempt.responseExcerpt}
    </ScrollableCode>
  );
}

function AttemptCell({ delivery }: { delivery: Delivery }) {
  const last = delivery.attempts.at(-1);
  if (!last) {
    return <span className="muted">not tried yet</span>;
  }
  return (
    <>
      <p className="attempt-outcome">{outcome(last)}</p>
      <p className="small muted">
        <When at={last.at} />
      </p>
      {delivery.attempts.length > 1 && (
        <details className="attempts">
          <summary>All {delivery.attempts.length} attempts</summary>
          <ol>
            {delivery.attempts.map((attempt) => (
              <li key={`${attempt.at}/${attempt.statusCode}/${attempt.latencyMs}`}>
                <When at={attempt.at} />: {outcome(attempt)}
              </li>
            ))}
          </ol>
        </details>
      )}
    </>
  );
}

/**
 * An endpoint's delivery log, newest first: each delivery's status, its latest attempt (status or error,
 * latency, time, the first bytes of the answer as text), every attempt on request; "Send test event", and
 * "Resend" on each delivery (the same event, the same `webhook-id`).
 */
export function DeliveryLog({ endpoint }: { endpoint: Endpoint }) {
  const client = useQueryClient();
  const [status, setStatus] = useState<'' | Status>('');
  const [said, setSaid] = useState('');
  const { cursor, pagerProps, reset } = useCursors();
  const deliveries = useQuery({
    queryKey: ['webhook-deliveries', endpoint.id, status, cursor],
    queryFn: async ({ signal }) =>
      unwrap(
        await api.GET('/api/v1/webhook-endpoints/{webhookEndpointId}/deliveries', {
          params: {
            path: { webhookEndpointId: endpoint.id },
            query: { limit: PAGE, ...(status ? { status } : {}), ...(cursor ? { cursor } : {}) },
          },
          signal,
        }),
      ),
    placeholderData: keepPreviousData,
    refetchInterval: (query) =>
      query.state.data?.data.some((d) => d.status === 'pending') ? REFRESH_MS : false,
  });
  // An attempt's outcome changes the endpoint too (failing since, disabled by Cadre): read it again then.
  const seen = useRef('');
  const outcomes = (deliveries.data?.data ?? []).map((d) => `${d.id}:${d.attempts.length}`).join();
  useEffect(() => {
    if (seen.current && seen.current !== outcomes) {
      void client.invalidateQueries({ queryKey: ['webhook-endpoint', endpoint.id] });
    }
    seen.current = outcomes;
  }, [outcomes, client, endpoint.id]);
  const refresh = () =>
    Promise.all([
      client.invalidateQueries({ queryKey: ['webhook-deliveries', endpoint.id] }),
      client.invalidateQueries({ queryKey: ['webhook-endpoint', endpoint.id] }),
    ]);
  const sendTest = useMutation({
    mutationFn: async () =>
      unwrap(
        await api.POST('/api/v1/webhook-endpoints/{webhookEndpointId}/test', {
          params: { path: { webhookEndpointId: endpoint.id } },
        }),
      ),
    onMutate: () => setSaid(''),
    onSuccess: () => {
      setSaid('A test event is on its way: its delivery appears below.');
      return refresh();
    },
  });
  const resend = useMutation({
    mutationFn: async (delivery: Delivery) =>
      unwrap(
        await api.POST('/api/v1/webhook-endpoints/{webhookEndpointId}/resend', {
          params: { path: { webhookEndpointId: endpoint.id } },
          body: { eventId: delivery.eventId },
        }),
      ),
    onMutate: () => setSaid(''),
    onSuccess: (_answer, delivery) => {
      setSaid(`“${eventWords(delivery.eventType)}” is being sent again, with the same webhook-id.`);
      return refresh();
    },
  });
  const list = deliveries.data?.data ?? [];
  return (
    <section className="card deliveries" aria-labelledby="deliveries-title">
      <div className="row space-between">
        <h2 id="deliveries-title">Deliveries</h2>
        {endpoint.enabled && (
          <button
            type="button"
            className="button button-small"
            disabled={sendTest.isPending}
            onClick={() => sendTest.mutate()}
          >
            {sendTest.isPending ? 'Sending…' : 'Send test event'}
          </button>
        )}
      </div>
      {!endpoint.enabled && (
        <p className="small muted">Enable the endpoint to send a test event or resend one.</p>
      )}
      <p className="success" role="status">
        {said}
      </p>
      <ErrorNotice error={sendTest.error ?? resend.error} />
      <div className="filters">
        <div className="field">
          <label htmlFor="deliveries-status">Show</label>
          <select
            id="deliveries-status"
            value={status}
            onChange={(event) => {
              setStatus(event.target.value as '' | Status);
              reset();
            }}
          >
            <option value="">All deliveries</option>
            <option value="failed">Failed</option>
            <option value="pending">Pending</option>
            <option value="succeeded">Delivered</option>
          </select>
        </div>
      </div>
      <ErrorNotice error={deliveries.error} retry={deliveries.refetch} />
      {deliveries.data && list.length === 0 && (
        <p className="muted">
          {status
            ? 'No delivery with this status.'
            : 'Nothing sent yet. Events of the types it receives are sent as they happen; “Send test event” sends one now.'}
        </p>
      )}
      {list.length > 0 && (
        <TableScroll label="Deliveries">
          <table className="table deliveries-table">
            <caption className="visually-hidden">Deliveries to this endpoint, newest first</caption>
            <thead>
              <tr>
                <th scope="col">Event</th>
                <th scope="col">Status</th>
                <th scope="col">Last attempt</th>
                <th scope="col">Answer</th>
                <th scope="col">
                  <span className="visually-hidden">Actions</span>
                </th>
              </tr>
            </thead>
            <tbody>
              {list.map((delivery) => {
                const state = STATUS[delivery.status];
                const last = delivery.attempts.at(-1);
                return (
                  <tr key={delivery.id}>
                    <th scope="row">
                      {eventWords(delivery.eventType)}
                      <p className="small muted break-anywhere">
                        <code>{delivery.eventType}</code> · <When at={delivery.createdAt} />
                      </p>
                    </th>
                    <td data-label="Status">
                      <span className={state.className}>{state.label}</span>
                      {delivery.status === 'pending' && delivery.nextAttemptAt && (
                        <p className="small muted">
                          next try <When at={delivery.nextAttemptAt} />
                        </p>
                      )}
                    </td>
                    <td data-label="Last attempt">
                      <AttemptCell delivery={delivery} />
                    </td>
                    <td className="excerpt-cell" data-label="Answer">
                      {last ? (
                        <Excerpt attempt={last} label={`Answer to ${delivery.id}`} />
                      ) : (
                        <span className="muted small">-</span>
                      )}
                    </td>
                    <td>
                      {endpoint.enabled && delivery.status !== 'pending' && (
                        <button
                          type="button"
                          className="button button-small"
                          disabled={resend.isPending}
                          onClick={() => resend.mutate(delivery)}
                        >
                          Resend
                          <span className="visually-hidden"> {eventWords(delivery.eventType)}</span>
                        </button>
                      )}
                    </td>
                  </tr>
                );
              })}
            </tbody>
          </table>
        </TableScroll>
      )}
      <Pager {...pagerProps(deliveries.data?.pagination)} />
    </section>
  );
}
