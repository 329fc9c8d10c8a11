import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { type FormEvent, useId, useState } from 'react';
import { useSearchParams } from 'react-router';
import { api, unwrap } from '../api/client.js';
import type { components } from '../api/schema.js';
import { CopyButton } from '../components/CopyButton.js';
import { ErrorNotice } from '../components/ErrorNotice.js';
import { PageSkeleton } from '../components/PageSkeleton.js';
import { formatDateTime } from '../format.js';
import { useMe } from '../session.js';
import { RoleMappingsForm } from './RoleMappingsForm.js';

type Provider = components['schemas']['SsoProvider'];

/**
 * Single sign-on on the settings page (organization:manage; docs/sso.md): the organization's OpenID
 * provider (the client secret is write-only), the test sign-in that must succeed before enforcement, the
 * enforcement with its break-glass owners, and the group → role rules.
 */
export function SsoSettings() {
  const provider = useQuery({
    queryKey: ['sso-provider'],
    queryFn: async ({ signal }) => {
      const answer = await api.GET('/api/v1/sso/provider', { signal });
      // No provider yet is an answer, not an error.
      if (answer.response.status === 404) return null;
      return unwrap(answer).data;
    },
  });
  const [params] = useSearchParams();
  return (
    <section className="card" aria-labelledby="sso-heading">
      <h2 id="sso-heading">Single sign-on</h2>
      <p className="small muted">
        People at your verified domains sign in through your identity provider (OpenID Connect).
      </p>
      {params.get('sso') === 'tested' && (
        <p className="notice" role="status">
          The test sign-in worked: enforcement can be turned on.
        </p>
      )}
      <ErrorNotice error={provider.error} retry={provider.refetch} />
      {provider.isPending && <PageSkeleton />}
      {provider.data !== undefined && <ProviderPart provider={provider.data} />}
      {provider.data && <Enforcement provider={provider.data} />}
      {provider.data && <RoleMappingsForm />}
    </section>
  );
}

function ProviderPart({ provider }: { provider: Provider | null }) {
  const [editing, setEditing] = useState(provider === null);
  const test = useMutation({
    mutationFn: async () =>
      unwrap(await api.POST('/api/v1/sso/provider/test', { body: { returnTo: '/settings' } })).data,
    // The provider's page, then back here with ?sso=tested (the cadre_sso cookie ties it to this browser).
    onSuccess: (started) => window.location.assign(started.authorizationUrl),
  });
  return (
    <>
      {provider && (
        <dl className="facts">
          <dt>Issuer</dt>
          <dd className="break-anywhere">
            <code>{provider.issuer}</code>
          </dd>
          <dt>Client id</dt>
          <dd className="break-anywhere">
            <code>{provider.clientId}</code>
          </dd>
          <dt>Redirect URI</dt>
          <dd className="copyable break-anywhere">
            <code>{provider.redirectUri}</code>{' '}
            <CopyButton text={provider.redirectUri} label="Copy" context="the redirect URI" />
          </dd>
          <dt>Test sign-in</dt>
          <dd>{provider.testedAt ? `Worked ${formatDateTime(provider.testedAt)}` : 'Not yet'}</dd>
          <dt>Enforced</dt>
          <dd>{provider.enforced ? 'Yes: passwords are refused for your domains' : 'No'}</dd>
        </dl>
      )}
      <ErrorNotice error={test.error} />
      <div className="row row-wrap">
        {provider && (
          <button type="button" className="button button-primary" onClick={() => test.mutate()}>
            {test.isPending ? 'Opening the provider…' : 'Test sign-in'}
          </button>
        )}
        {provider && !editing && (
          <button type="button" className="button" onClick={() => setEditing(true)}>
            Change the provider
          </button>
        )}
      </div>
      {editing && <ProviderForm provider={provider} onDone={() => setEditing(provider === null)} />}
    </>
  );
}

function ProviderForm({ provider, onDone }: { provider: Provider | null; onDone: () => void }) {
  const queryClient = useQueryClient();
  const id = useId();
  const [issuer, setIssuer] = useState(provider?.issuer ?? '');
  const [clientId, setClientId] = useState(provider?.clientId ?? '');
  const [clientSecret, setClientSecret] = useState('');
  const [groupsClaim, setGroupsClaim] = useState(provider?.groupsClaim ?? 'groups');
  const [hours, setHours] = useState(String((provider?.sessionMaxAgeSeconds ?? 12 * 3600) / 3600));
  const save = useMutation({
    mutationFn: async () =>
      unwrap(
        await api.PUT('/api/v1/sso/provider', {
          body: {
            issuer,
            clientId,
            groupsClaim,
            sessionMaxAgeSeconds: Math.round(Number(hours) * 3600),
            ...(clientSecret ? { clientSecret } : {}),
          },
        }),
      ),
    onSuccess: async () => {
      setClientSecret('');
      await queryClient.invalidateQueries({ queryKey: ['sso-provider'] });
      onDone();
    },
  });
  const submit = (event: FormEvent) => {
    event.preventDefault();
    save.mutate();
  };
  return (
    <form className="form" onSubmit={submit} aria-label="Identity provider">
      <label htmlFor={`${id}-issuer`}>Issuer</label>
      <input
        id={`${id}-issuer`}
        type="url"
        value={issuer}
        placeholder="https://acme.okta.com"
        onChange={(event) => setIssuer(event.target.value)}
        required
      />
      <label htmlFor={`${id}-client`}>Client id</label>
      <input
        id={`${id}-client`}
        value={clientId}
        onChange={(event) => setClientId(event.target.value)}
        required
      />
      <label htmlFor={`${id}-secret`}>Client secret</label>
      <input
        id={`${id}-secret`}
        type="password"
        autoComplete="off"
        value={clientSecret}
        placeholder={provider ? 'Stored: leave empty to keep it' : ''}
        onChange={(event) => setClientSecret(event.target.value)}
        required={!provider}
      />
      <label htmlFor={`${id}-groups`}>Groups claim</label>
      <input
        id={`${id}-groups`}
        value={groupsClaim}
        onChange={(event) => setGroupsClaim(event.target.value)}
      />
      <label htmlFor={`${id}-hours`}>Sign in again after (hours)</label>
      <input
        id={`${id}-hours`}
        type="number"
        min="0.1"
        max="720"
        step="0.5"
        value={hours}
        onChange={(event) => setHours(event.target.value)}
      />
      <p className="small muted">
        Saving reads the issuer's discovery document at once. A new issuer or client needs a new test sign-in,
        and turns enforcement off.
      </p>
      <ErrorNotice error={save.error} />
      <div className="row row-wrap">
        <button type="submit" className="button button-primary" disabled={save.isPending}>
          Save the provider
        </button>
        {provider && (
          <button type="button" className="button" onClick={onDone}>
            Cancel
          </button>
        )}
      </div>
    </form>
  );
}

function Enforcement({ provider }: { provider: Provider }) {
  const queryClient = useQueryClient();
  const me = useMe();
  const org = me.data?.organization.slug ?? '';
  const owners = useQuery({
    queryKey: ['members', org, 'owners'],
    enabled: Boolean(org),
    queryFn: async ({ signal }) =>
      unwrap(
        await api.GET('/api/v1/organizations/{org}/members', {
          params: { path: { org }, query: { limit: 100 } },
          signal,
        }),
      ).data.filter((member) => member.role === 'owner'),
  });
  const [enforced, setEnforced] = useState(provider.enforced);
  const [breakGlass, setBreakGlass] = useState<string[]>(provider.breakGlassUserIds);
  const save = useMutation({
    mutationFn: async () =>
      unwrap(await api.PUT('/api/v1/sso/enforcement', { body: { enforced, breakGlassUserIds: breakGlass } })),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: ['sso-provider'] }),
  });
  const submit = (event: FormEvent) => {
    event.preventDefault();
    save.mutate();
  };
  const toggle = (userId: string, on: boolean) =>
    setBreakGlass((list) => (on ? [...list, userId] : list.filter((each) => each !== userId)));
  return (
    <form className="form" onSubmit={submit} aria-label="Enforcement">
      <h3>Enforcement</h3>
      {!provider.testedAt && (
        <p className="small notice">Run a test sign-in first: enforcement waits for one.</p>
      )}
      <label className="check">
        <input
          type="checkbox"
          checked={enforced}
          disabled={!provider.testedAt}
          onChange={(event) => setEnforced(event.target.checked)}
        />
        Require single sign-on for people at your verified domains (API keys keep working)
      </label>
      <fieldset className="fieldset">
        <legend>Owners who keep their password (break-glass; each use is audited)</legend>
        {owners.data?.map((owner) => (
          <label key={owner.userId} className="check">
            <input
              type="checkbox"
              checked={breakGlass.includes(owner.userId)}
              onChange={(event) => toggle(owner.userId, event.target.checked)}
            />
            {owner.name ?? owner.email} <span className="muted">({owner.email})</span>
          </label>
        ))}
      </fieldset>
      <ErrorNotice error={save.error ?? owners.error} />
      {save.isSuccess && (
        <p className="small" role="status">
          Enforcement saved.
        </p>
      )}
      <button type="submit" className="button button-primary" disabled={save.isPending}>
        Save enforcement
      </button>
    </form>
  );
}
