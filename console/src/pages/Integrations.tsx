import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { type FormEvent, useState } from 'react';
import { useSearchParams } from 'react-router';
import { ApiProblem, api, unwrap } from '../api/client.js';
import type { components } from '../api/schema.js';
import { ConfirmDialog } from '../components/ConfirmDialog.js';
import { ErrorNotice } from '../components/ErrorNotice.js';
import { PageHeader } from '../components/PageHeader.js';
import { PageSkeleton } from '../components/PageSkeleton.js';
import { formatDate } from '../format.js';
import { useMe, useSession } from '../session.js';
import { OAUTH_ERRORS } from './Connections.js';

type Integration = components['schemas']['Integration'];
type Preset = components['schemas']['OAuthPreset'];

const scopesOf = (text: string) => text.split(/[\s,]+/).filter(Boolean);

/** What the verify flow reported when it came back here (oauth_status, verified, preset). */
function Outcome(props: { names: Map<string, string> }) {
  const [params] = useSearchParams();
  const status = params.get('oauth_status');
  // A failed flow's redirect does not name the preset: the return path carries it (`verifying`).
  const preset = params.get('preset') ?? params.get('verifying') ?? '';
  const name = props.names.get(preset) ?? preset;
  if (status === 'success' && params.get('verified') === 'true') {
    return (
      <p className="notice" role="status">
        {name} is verified: the test authorization worked and its tokens were discarded. Members can now
        connect it.
      </p>
    );
  }
  if (status !== 'error') return null;
  const code = params.get('oauth_error') ?? 'unknown';
  return (
    <div className="notice notice-error" role="alert">
      <p className="notice-title">
        {name ? `${name} was not verified.` : 'The integration was not verified.'}
      </p>
      <p>
        {code === 'integration_changed'
          ? 'The integration was changed while you were at the provider: verify it again.'
          : (OAUTH_ERRORS[code] ?? `The provider answered “${code}”.`)}
      </p>
      {params.get('oauth_error_description') && (
        <p className="small muted">{params.get('oauth_error_description')}</p>
      )}
    </div>
  );
}

/** Register (all fields) or update (client id, a new secret, scopes; the secret is kept when left empty). */
function IntegrationForm(props: {
  org: string;
  presets: Preset[];
  existing?: Integration;
  onDone: () => void;
}) {
  const client = useQueryClient();
  const { existing } = props;
  const available = props.presets;
  const [presetKey, setPresetKey] = useState(existing?.presetKey ?? available[0]?.key ?? '');
  const [clientId, setClientId] = useState(existing?.version.clientId ?? '');
  const [clientSecret, setClientSecret] = useState('');
  const [issuer, setIssuer] = useState(existing?.version.issuer ?? '');
  const [scopes, setScopes] = useState(existing?.version.scopes.join(' ') ?? '');
  const preset = props.presets.find((p) => p.key === presetKey);
  const prefix = existing ? `edit-${existing.presetKey}` : 'new';
  const save = useMutation({
    mutationFn: async () => {
      const path = { org: props.org };
      if (existing) {
        const body: components['schemas']['UpdateIntegrationRequest'] = {};
        if (clientId.trim() !== existing.version.clientId) body.clientId = clientId.trim();
        if (clientSecret) body.clientSecret = clientSecret;
        if (preset?.issuerRequired && issuer.trim() !== (existing.version.issuer ?? '')) {
          body.issuer = issuer.trim();
        }
        if (scopes.trim() !== existing.version.scopes.join(' ')) body.scopes = scopesOf(scopes);
        return unwrap(
          await api.PATCH('/api/v1/organizations/{org}/integrations/{presetKey}', {
            params: { path: { ...path, presetKey: existing.presetKey } },
            body,
          }),
        );
      }
      return unwrap(
        await api.POST('/api/v1/organizations/{org}/integrations', {
          params: { path },
          body: {
            presetKey,
            clientId: clientId.trim(),
            clientSecret,
            ...(preset?.issuerRequired ? { issuer: issuer.trim() } : {}),
            ...(scopes.trim() ? { scopes: scopesOf(scopes) } : {}),
          },
        }),
      );
    },
    onSuccess: async () => {
      setClientSecret('');
      await client.invalidateQueries({ queryKey: ['integrations'] });
      props.onDone();
    },
  });
  const submit = (event: FormEvent) => {
    event.preventDefault();
    save.mutate();
  };
  return (
    <form
      className="form card"
      onSubmit={submit}
      aria-label={existing ? `Update ${existing.presetName}` : 'Register an integration'}
    >
      {!existing && (
        <>
          <label htmlFor={`${prefix}-preset`}>Provider</label>
          <select id={`${prefix}-preset`} value={presetKey} onChange={(e) => setPresetKey(e.target.value)}>
            {available.map((p) => (
              <option key={p.key} value={p.key}>
                {p.name}
              </option>
            ))}
          </select>
        </>
      )}
      {preset && (
        <>
          <p className="small muted">Register this redirect URI in {preset.name}’s OAuth app:</p>
          <p className="key small">{preset.redirectUri}</p>
        </>
      )}
      <label htmlFor={`${prefix}-client-id`}>Client id</label>
      <input
        id={`${prefix}-client-id`}
        value={clientId}
        onChange={(e) => setClientId(e.target.value)}
        required
        autoComplete="off"
      />
      <label htmlFor={`${prefix}-client-secret`}>
        {existing ? 'New client secret (leave empty to keep the current one)' : 'Client secret'}
      </label>
      <input
        id={`${prefix}-client-secret`}
        type="password"
        value={clientSecret}
        onChange={(e) => setClientSecret(e.target.value)}
        required={!existing}
        autoComplete="new-password"
      />
      {preset?.issuerRequired && (
        <>
          <label htmlFor={`${prefix}-issuer`}>Issuer URL</label>
          <input
            id={`${prefix}-issuer`}
            type="url"
            value={issuer}
            onChange={(e) => setIssuer(e.target.value)}
            required
          />
        </>
      )}
      <label htmlFor={`${prefix}-scopes`}>
        Scopes (space-separated; empty: {preset?.name ?? 'the preset'}’s)
      </label>
      <input
        id={`${prefix}-scopes`}
        value={scopes}
        onChange={(e) => setScopes(e.target.value)}
        placeholder={preset?.defaultScopes.join(' ')}
      />
      <p className="small muted">
        The secret is stored encrypted and never shown again. {existing ? 'A change' : 'A new integration'} is
        unverified until you verify it.
      </p>
      <ErrorNotice error={save.error} />
      <div className="actions">
        <button type="submit" className="button button-primary" disabled={save.isPending}>
          {existing ? 'Save changes' : 'Register'}
        </button>
        <button type="button" className="button" onClick={props.onDone}>
          Cancel
        </button>
      </div>
    </form>
  );
}

/** Owners and admins (integrations:manage) register, update, verify and remove the organization's OAuth apps. */
export function Integrations() {
  const client = useQueryClient();
  const session = useSession();
  const me = useMe();
  const org = session.data?.organization.id ?? '';
  const canManage = me.data?.permissions.includes('integrations:manage') ?? false;
  const [registering, setRegistering] = useState(false);
  const [editing, setEditing] = useState<string | null>(null);
  const [removing, setRemoving] = useState<Integration | null>(null);
  const integrations = useQuery({
    queryKey: ['integrations', org],
    enabled: Boolean(org),
    queryFn: async () =>
      unwrap(await api.GET('/api/v1/organizations/{org}/integrations', { params: { path: { org } } })).data,
  });
  const presets = useQuery({
    queryKey: ['oauth-presets'],
    queryFn: async () => unwrap(await api.GET('/api/v1/oauth/presets')).data,
    staleTime: Number.POSITIVE_INFINITY,
  });
  const remove = useMutation({
    mutationFn: async ({ integration, cascade }: { integration: Integration; cascade: boolean }) =>
      unwrap(
        await api.DELETE('/api/v1/organizations/{org}/integrations/{presetKey}', {
          params: {
            path: { org, presetKey: integration.presetKey },
            query: cascade ? { cascade: 'true' } : {},
          },
        }),
      ),
    onSuccess: async () => {
      setRemoving(null);
      await Promise.all([
        client.invalidateQueries({ queryKey: ['integrations'] }),
        client.invalidateQueries({ queryKey: ['connections'] }),
      ]);
    },
  });
  const blocked = remove.error instanceof ApiProblem && remove.error.status === 409 ? remove.error : null;
  const names = new Map((presets.data ?? []).map((p) => [p.key, p.name]));
  const list = integrations.data ?? [];
  const unregistered = (presets.data ?? []).filter((p) => !list.some((i) => i.presetKey === p.key));
  const verifyUrl = (presetKey: string) =>
    `/api/oauth/verify/${encodeURIComponent(presetKey)}?${new URLSearchParams({ returnTo: `/integrations?verifying=${encodeURIComponent(presetKey)}` })}`;
  return (
    <section className="page">
      <PageHeader
        title="Integrations"
        action={
          canManage &&
          !registering &&
          unregistered.length > 0 && (
            <button type="button" className="button button-primary" onClick={() => setRegistering(true)}>
              Register an integration
            </button>
          )
        }
      >
        Your organization’s own OAuth apps, one per provider: members connect accounts through the verified
        ones.
      </PageHeader>
      <Outcome names={names} />
      {me.data && !canManage && (
        <p className="notice">Only owners and admins manage integrations; you can see which ones exist.</p>
      )}
      <ErrorNotice error={integrations.error ?? presets.error} />
      {registering && (
        <IntegrationForm org={org} presets={unregistered} onDone={() => setRegistering(false)} />
      )}
      {integrations.isPending && <PageSkeleton />}
      {integrations.data && list.length === 0 && !registering && (
        <div className="empty card">
          <p>
            No integration yet. Register your OAuth app for a provider, then verify it by signing in once.
          </p>
        </div>
      )}
      {list.map((integration) => (
        <section
          key={integration.id}
          className="card"
          aria-labelledby={`integration-${integration.presetKey}`}
        >
          <div className="row space-between">
            <div>
              <h2 id={`integration-${integration.presetKey}`}>
                {integration.presetName}{' '}
                <span
                  className={
                    integration.version.verified ? 'badge badge-available' : 'badge badge-deprecated'
                  }
                >
                  {integration.version.verified ? 'Verified' : 'Not verified'}
                </span>
              </h2>
              <p className="small muted">
                Client id <code>{integration.version.clientId}</code> · version {integration.version.number}{' '}
                of {formatDate(integration.version.createdAt)}
                {integration.version.scopes.length > 0 &&
                  ` · scopes ${integration.version.scopes.join(', ')}`}
              </p>
            </div>
            {canManage && (
              <div className="actions wrap">
                <a
                  className={
                    integration.version.verified
                      ? 'button button-small'
                      : 'button button-small button-primary'
                  }
                  href={verifyUrl(integration.presetKey)}
                >
                  {integration.version.verified ? 'Verify again' : 'Verify'}
                </a>
                <button
                  type="button"
                  className="button button-small"
                  onClick={() => setEditing(editing === integration.presetKey ? null : integration.presetKey)}
                >
                  Update
                </button>
                <button
                  type="button"
                  className="button button-small button-danger-outline"
                  onClick={() => {
                    remove.reset();
                    setRemoving(integration);
                  }}
                >
                  Remove…
                </button>
              </div>
            )}
          </div>
          {!integration.version.verified && canManage && (
            <p className="small">
              Verify signs you in at {integration.presetName} once with this app; the test connection is then
              discarded. Until then, members are not offered it.
            </p>
          )}
          {editing === integration.presetKey && presets.data && (
            <IntegrationForm
              org={org}
              presets={presets.data}
              existing={integration}
              onDone={() => setEditing(null)}
            />
          )}
        </section>
      ))}
      <ConfirmDialog
        open={removing !== null}
        title={`Remove ${removing?.presetName ?? ''}?`}
        confirmLabel={blocked ? 'Disconnect them and remove' : 'Remove'}
        danger
        busy={remove.isPending}
        onConfirm={() => removing && remove.mutate({ integration: removing, cascade: blocked !== null })}
        onCancel={() => setRemoving(null)}
      >
        {blocked ? (
          <div role="alert">
            <p>
              {blocked.details.length} connection{blocked.details.length === 1 ? ' was' : 's were'} made with
              it:
            </p>
            <ul>
              {blocked.details.map((d) => (
                <li key={d.path}>{d.message}</li>
              ))}
            </ul>
            <p>
              Removing it anyway disconnects them (tokens revoked at the provider), each recorded in the audit
              log.
            </p>
          </div>
        ) : (
          <>
            <p>Its client secrets are destroyed; members can no longer connect it.</p>
            <ErrorNotice error={remove.error} />
          </>
        )}
      </ConfirmDialog>
    </section>
  );
}
