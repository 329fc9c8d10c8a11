import { useQuery } from '@tanstack/react-query';
import { useState } from 'react';
import { Link, useNavigate, useParams } from 'react-router';
import { ApiProblem, api, unwrap } from '../api/client.js';
import { ErrorNotice } from '../components/ErrorNotice.js';
import { PageHeader } from '../components/PageHeader.js';
import { PageSkeleton } from '../components/PageSkeleton.js';
import { useCan, useMe } from '../session.js';
import { DeliveryLog } from './webhook-deliveries.js';
import {
  DisabledBanner,
  type Endpoint,
  EndpointActions,
  EndpointFacts,
  EndpointForm,
  EndpointStatus,
  endpointName,
  FailingBanner,
  SecretCard,
  WebhooksExplained,
} from './webhook-parts.js';

/**
 * One webhook endpoint: its settings and actions, why Cadre disabled it (or since when it fails), and its
 * delivery log with "Send test event" and "Resend".
 */
export function WebhookEndpoint() {
  const { endpointId = '' } = useParams();
  const navigate = useNavigate();
  const me = useMe();
  const can = useCan();
  const canManage = can('webhooks:manage');
  const [editing, setEditing] = useState(false);
  const [secret, setSecret] = useState<{ endpoint: Endpoint; secret: string } | null>(null);
  const endpoint = useQuery({
    queryKey: ['webhook-endpoint', endpointId],
    enabled: canManage,
    queryFn: async ({ signal }) =>
      unwrap(
        await api.GET('/api/v1/webhook-endpoints/{webhookEndpointId}', {
          params: { path: { webhookEndpointId: endpointId } },
          signal,
        }),
      ).data,
  });
  const notFound = endpoint.error instanceof ApiProblem && endpoint.error.status === 404;
  const data = endpoint.data;
  return (
    <section className="page">
      <nav aria-label="Breadcrumb" className="breadcrumb small">
        <Link to="/developers/webhooks">Webhooks</Link> /
      </nav>
      <PageHeader
        title={
          <span className="break-anywhere">
            {data ? endpointName(data) : notFound ? 'Endpoint not found' : 'Webhook endpoint'}{' '}
            {data && <EndpointStatus endpoint={data} />}
          </span>
        }
      >
        A webhook endpoint: its settings and every delivery Cadre made to it.
      </PageHeader>
      {me.isPending && <PageSkeleton />}
      {me.data && !canManage && (
        <div className="card flush-top">
          <WebhooksExplained />
          <p className="notice">
            Only owners and admins see and manage webhook endpoints and their deliveries.
          </p>
        </div>
      )}
      {notFound ? (
        <p className="notice">
          This endpoint does not exist (it may have been deleted).{' '}
          <Link to="/developers/webhooks">See your endpoints</Link>.
        </p>
      ) : (
        <ErrorNotice error={endpoint.error} retry={endpoint.refetch} />
      )}
      {canManage && endpoint.isPending && <PageSkeleton />}
      {data && (
        <>
          <DisabledBanner endpoint={data} canManage={canManage} />
          <FailingBanner endpoint={data} />
          {secret && <SecretCard {...secret} rotated onDone={() => setSecret(null)} />}
          {editing ? (
            <EndpointForm existing={data} onDone={() => setEditing(false)} />
          ) : (
            <section className="card flush-top" aria-label="Settings">
              <EndpointFacts endpoint={data} />
              <EndpointActions
                endpoint={data}
                onEdit={() => setEditing(true)}
                onSecret={setSecret}
                onDeleted={() => navigate('/developers/webhooks')}
              />
            </section>
          )}
          <DeliveryLog endpoint={data} />
        </>
      )}
    </section>
  );
}
