import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { useSearchParams } from 'react-router';
import { api, unwrap } from '../api/client.js';
import type { components } from '../api/schema.js';
import { ConfirmDialog } from '../components/ConfirmDialog.js';
import { ErrorNotice } from '../components/ErrorNotice.js';
import { PageHeader } from '../components/PageHeader.js';
import { PageSkeleton } from '../components/PageSkeleton.js';
import { formatDate } from '../format.js';
import { useSession } from '../session.js';

type Connection = components['schemas']['Connection'];
type Project = components['schemas']['ProjectDetail'];
type Integration = components['schemas']['Integration'];

/** What the OAuth callback's `oauth_error` codes mean, for the person who just came back (docs/oauth.md). */
export const OAUTH_ERRORS: Record<string, string> = {
  access_denied: 'The provider’s consent screen was declined, so nothing was connected.',
  invalid_state:
    'The connection attempt could not be matched to this browser (it was replayed, or started elsewhere). Start it again.',
  state_expired: 'The connection took longer than 10 minutes and expired. Start it again.',
  forbidden:
    'You may not connect this environment (your rights changed, or another person started the flow).',
  exchange_failed:
    'The provider refused to hand over the tokens. Check the integration’s client secret, then try again.',
  environment_removed: 'The environment (or its project) was deleted while you were at the provider.',
  integration_changed:
    'The integration was removed while you were at the provider. An owner or admin can register it again.',
  plan_limit_exceeded: 'The organization has as many connections as its plan allows.',
};

function Outcome(props: { names: Map<string, string> }) {
  const [params] = useSearchParams();
  const status = params.get('oauth_status');
  if (status === 'success') {
    return (
      <p className="notice" role="status">
        Connected {props.names.get(params.get('preset') ?? '') ?? params.get('preset') ?? ''}: the connection
        is listed below.
      </p>
    );
  }
  if (status !== 'error') return null;
  const code = params.get('oauth_error') ?? 'unknown';
  return (
    <div className="notice notice-error" role="alert">
      <p className="notice-title">The connection was not made.</p>
      <p>{OAUTH_ERRORS[code] ?? `The provider answered “${code}”.`}</p>
      {params.get('oauth_error_description') && (
        <p className="small muted">{params.get('oauth_error_description')}</p>
      )}
    </div>
  );
}

function EnvironmentConnections(props: {
  project: Project;
  environment: Project['environments'][number];
  integrations: Integration[];
}) {
  const client = useQueryClient();
  const { project, environment } = props;
  const [disconnecting, setDisconnecting] = useState<Connection | null>(null);
  const path = { projectId: project.id, environmentId: environment.id };
  const connections = useQuery({
    queryKey: ['connections', environment.id],
    queryFn: async () =>
      unwrap(
        await api.GET('/api/v1/projects/{projectId}/environments/{environmentId}/connections', {
          params: { path },
        }),
      ).data.connections,
  });
  const disconnect = useMutation({
    mutationFn: async (connection: Connection) =>
      unwrap(
        await api.DELETE(
          '/api/v1/projects/{projectId}/environments/{environmentId}/connections/{connectionId}',
          {
            params: { path: { ...path, connectionId: connection.id } },
          },
        ),
      ),
    onSuccess: () => {
      setDisconnecting(null);
      return client.invalidateQueries({ queryKey: ['connections', environment.id] });
    },
    onError: () => setDisconnecting(null),
  });
  const returnTo = '/connections';
  const startUrl = (preset: string) =>
    `/api/oauth/start/${encodeURIComponent(preset)}?${new URLSearchParams({ projectId: project.id, environmentId: environment.id, returnTo })}`;
  const list = connections.data ?? [];
  const names = new Map(props.integrations.map((i) => [i.presetKey, i.presetName]));
  return (
    <section className="card environment" aria-labelledby={`env-${environment.id}`}>
      <h3 id={`env-${environment.id}`}>{environment.name}</h3>
      <ErrorNotice error={connections.error ?? disconnect.error} />
      {connections.isPending ? (
        <PageSkeleton lines={2} />
      ) : list.length === 0 ? (
        <p className="muted">No connections yet.</p>
      ) : (
        <ul className="connections">
          {list.map((connection) => (
            <li key={connection.id}>
              <div>
                <strong>{names.get(connection.presetKey) ?? connection.presetKey}</strong> ·{' '}
                {connection.accountLabel ?? connection.accountId}{' '}
                <span
                  className={
                    connection.status === 'active' ? 'badge badge-available' : 'badge badge-deprecated'
                  }
                >
                  {connection.status === 'active' ? 'Active' : 'Needs sign-in again'}
                </span>
                <p className="small muted">
                  {connection.scopes.length ? `Scopes: ${connection.scopes.join(', ')}` : 'No scopes'}
                  {connection.expiresAt ? ` · token expires ${formatDate(connection.expiresAt)}` : ''} ·
                  connected {formatDate(connection.createdAt)}
                </p>
              </div>
              <button
                type="button"
                className="button button-small button-danger-outline"
                onClick={() => setDisconnecting(connection)}
              >
                Disconnect…
              </button>
            </li>
          ))}
        </ul>
      )}
      <div className="actions wrap">
        {props.integrations
          .filter((integration) => integration.version.verified)
          .map((integration) => (
            <a key={integration.id} className="button button-small" href={startUrl(integration.presetKey)}>
              {list.some((c) => c.presetKey === integration.presetKey) ? 'Reconnect' : 'Connect'}{' '}
              {integration.presetName}
            </a>
          ))}
      </div>
      <ConfirmDialog
        open={disconnecting !== null}
        title={`Disconnect ${disconnecting ? (names.get(disconnecting.presetKey) ?? disconnecting.presetKey) : ''}?`}
        confirmLabel="Disconnect"
        danger
        busy={disconnect.isPending}
        onConfirm={() => disconnecting && disconnect.mutate(disconnecting)}
        onCancel={() => setDisconnecting(null)}
      >
        <p>
          Cadre asks the provider to revoke the tokens, then deletes them. Agents in {environment.name} lose
          this access at once; connecting again needs the provider’s consent again.
        </p>
      </ConfirmDialog>
    </section>
  );
}

/** Projects → environments → their connections; connect each verified integration, disconnect, outcomes. */
export function Connections() {
  const session = useSession();
  const org = session.data?.organization.id ?? '';
  const projects = useQuery({
    queryKey: ['projects'],
    queryFn: async () =>
      unwrap(await api.GET('/api/v1/projects', { params: { query: { limit: 100 } } })).data,
  });
  const integrations = useQuery({
    queryKey: ['integrations', org],
    queryFn: async () =>
      unwrap(await api.GET('/api/v1/organizations/{org}/integrations', { params: { path: { org } } })).data,
  });
  const verified = (integrations.data ?? []).filter((integration) => integration.version.verified);
  return (
    <section className="page">
      <PageHeader title="Connections">The accounts your agents may use, per project environment.</PageHeader>
      <Outcome names={new Map((integrations.data ?? []).map((i) => [i.presetKey, i.presetName]))} />
      <ErrorNotice error={projects.error ?? integrations.error} />
      {integrations.data && verified.length === 0 && (
        <p className="notice">
          No verified integration yet: an owner or admin registers and verifies one on the Integrations page
          before anything can be connected.
        </p>
      )}
      {projects.data?.length === 0 && (
        <div className="empty card">
          <p>Your organization has no projects yet.</p>
        </div>
      )}
      {projects.data?.map((project) => (
        <section key={project.id} className="project" aria-labelledby={`project-${project.id}`}>
          <h2 id={`project-${project.id}`}>{project.name}</h2>
          {project.environments.length === 0 && <p className="muted">No environments.</p>}
          <div className="environments">
            {project.environments.map((environment) => (
              <EnvironmentConnections
                key={environment.id}
                project={project}
                environment={environment}
                integrations={integrations.data ?? []}
              />
            ))}
          </div>
        </section>
      ))}
    </section>
  );
}
