import { useQuery } from '@tanstack/react-query';
import { useState } from 'react';
import { Link } from 'react-router';
import { api, unwrap } from '../api/client.js';
import { ErrorNotice } from '../components/ErrorNotice.js';
import { PageHeader } from '../components/PageHeader.js';
import { PageSkeleton } from '../components/PageSkeleton.js';
import { useCan, useMe } from '../session.js';
import {
  DisabledBanner,
  type Endpoint,
  EndpointActions,
  EndpointFacts,
  EndpointForm,
  EndpointStatus,
  endpointName,
  SecretCard,
  WebhooksExplained,
} from './webhook-parts.js';

/** At most this many endpoints per organization (the API answers 409 beyond; docs/webhooks.md). */
const MAX_ENDPOINTS = 16;

/**
 * The organization's webhook endpoints: owners and admins (webhooks:manage) add, change, enable or disable,
 * rotate and delete them; each links to its delivery log. Others are told who manages them.
 */
export function Webhooks() {
  const me = useMe();
  const can = useCan();
  const canManage = can('webhooks:manage');
  const [adding, setAdding] = useState(false);
  const [editing, setEditing] = useState<string | null>(null);
  const [secret, setSecret] = useState<{ endpoint: Endpoint; secret: string; rotated: boolean } | null>(null);
  const endpoints = useQuery({
    queryKey: ['webhook-endpoints'],
    enabled: canManage,
    queryFn: async ({ signal }) => unwrap(await api.GET('/api/v1/webhook-endpoints', { signal })).data,
  });
  const list = endpoints.data ?? [];
  return (
    <section className="page">
      <PageHeader
        title="Webhooks"
        action={
          canManage &&
          !adding &&
          !secret &&
          list.length < MAX_ENDPOINTS &&
          endpoints.data && (
            <button type="button" className="button button-primary" onClick={() => setAdding(true)}>
              Add an endpoint
            </button>
          )
        }
      >
        Cadre tells your systems when something changes, with a signed HTTP request.
      </PageHeader>
      {me.isPending && <PageSkeleton />}
      {me.data && !canManage && (
        <div className="card flush-top">
          <WebhooksExplained />
          <p className="notice">
            Only owners and admins of {me.data.organization.name} manage webhook endpoints: ask one of them to
            add one for your system.
          </p>
        </div>
      )}
      {secret && (
        <SecretCard
          endpoint={secret.endpoint}
          secret={secret.secret}
          rotated={secret.rotated}
          onDone={() => setSecret(null)}
        />
      )}
      {adding && (
        <EndpointForm
          onCreated={(created) => {
            setAdding(false);
            setSecret({ ...created, rotated: false });
          }}
          onDone={() => setAdding(false)}
        />
      )}
      <ErrorNotice error={endpoints.error} retry={endpoints.refetch} />
      {canManage && endpoints.isPending && <PageSkeleton />}
      {endpoints.data && list.length === 0 && !adding && !secret && (
        <div className="card webhooks-intro">
          <h2>No endpoint yet</h2>
          <WebhooksExplained />
          <p>
            Add an endpoint, pick the events it receives, and keep the signing secret Cadre shows you once.
            Scripts that would rather ask can read the same events on the{' '}
            <Link to="/developers/events">Events</Link> page or from <code>GET /api/v1/events</code>.
          </p>
        </div>
      )}
      {list.length >= MAX_ENDPOINTS && (
        <p className="small muted">
          Your organization has {MAX_ENDPOINTS} endpoints, the most it may have: delete one to add another.
        </p>
      )}
      {list.map((endpoint) =>
        editing === endpoint.id ? (
          <EndpointForm key={endpoint.id} existing={endpoint} onDone={() => setEditing(null)} />
        ) : (
          <section key={endpoint.id} className="card endpoint" aria-labelledby={`endpoint-${endpoint.id}`}>
            <div className="row space-between">
              <h2 id={`endpoint-${endpoint.id}`} className="endpoint-title">
                <Link to={`/developers/webhooks/${endpoint.id}`}>{endpointName(endpoint)}</Link>{' '}
                <EndpointStatus endpoint={endpoint} />
              </h2>
              <Link className="button button-small" to={`/developers/webhooks/${endpoint.id}`}>
                Deliveries<span className="visually-hidden"> of {endpointName(endpoint)}</span>
              </Link>
            </div>
            <DisabledBanner endpoint={endpoint} canManage={canManage} />
            <EndpointFacts endpoint={endpoint} />
            <EndpointActions
              endpoint={endpoint}
              onEdit={() => setEditing(endpoint.id)}
              onSecret={(answer) => {
                setSecret({ ...answer, rotated: true });
                window.scrollTo({ top: 0 });
              }}
            />
          </section>
        ),
      )}
    </section>
  );
}
