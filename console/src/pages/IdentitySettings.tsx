import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { type FormEvent, useState } from 'react';
import { api, unwrap } from '../api/client.js';
import type { components } from '../api/schema.js';
import { CopyButton } from '../components/CopyButton.js';
import { ErrorNotice } from '../components/ErrorNotice.js';
import { PageSkeleton } from '../components/PageSkeleton.js';
import { SsoSettings } from './SsoSettings.js';

type Domain = components['schemas']['Domain'];

const STATUS_WORDS: Record<Domain['status'], string> = {
  pending: 'Waiting for proof',
  verified: 'Verified',
  lapsed: 'Lapsed: the proof is gone',
};

/**
 * The organization's verified email domains (with the TXT record to publish), single sign-on and its SCIM
 * token, on the settings page for the owner (organization:manage; docs/domains.md, docs/sso.md, docs/scim.md).
 */
export function IdentitySettings() {
  return (
    <>
      <Domains />
      <SsoSettings />
      <ScimToken />
    </>
  );
}

function Domains() {
  const queryClient = useQueryClient();
  const [domain, setDomain] = useState('');
  const domains = useQuery({
    queryKey: ['domains'],
    queryFn: async ({ signal }) => unwrap(await api.GET('/api/v1/domains', { signal })).data,
  });
  const refresh = () => queryClient.invalidateQueries({ queryKey: ['domains'] });
  const claim = useMutation({
    mutationFn: async () => unwrap(await api.POST('/api/v1/domains', { body: { domain } })),
    onSuccess: () => {
      setDomain('');
      return refresh();
    },
  });
  const verify = useMutation({
    mutationFn: async (domainId: string) =>
      unwrap(
        await api.POST('/api/v1/domains/{domainId}/verify', { params: { path: { domainId } }, body: {} }),
      ),
    onSuccess: refresh,
  });
  const remove = useMutation({
    mutationFn: async (domainId: string) =>
      unwrap(await api.DELETE('/api/v1/domains/{domainId}', { params: { path: { domainId } } })),
    onSuccess: refresh,
  });
  const submit = (event: FormEvent) => {
    event.preventDefault();
    claim.mutate();
  };
  return (
    <section className="card" aria-labelledby="domains-heading">
      <h2 id="domains-heading">Email domains</h2>
      <ErrorNotice error={domains.error} retry={domains.refetch} />
      {domains.isPending && <PageSkeleton />}
      {domains.data?.length === 0 && <p className="muted">No domain claimed yet.</p>}
      {domains.data?.map((each) => (
        <div key={each.id} className="domain" data-testid={`domain-${each.domain}`}>
          <p>
            <strong>{each.domain}</strong> — {STATUS_WORDS[each.status]}
          </p>
          {each.status !== 'verified' && (
            <>
              <p className="small">Add this TXT record to the domain's DNS, then check it:</p>
              <dl className="small">
                <dt>Name</dt>
                <dd>
                  <code>{each.dnsRecord.name}</code>{' '}
                  <CopyButton text={each.dnsRecord.name} label="Copy name" context="of the TXT record" />
                </dd>
                <dt>Value</dt>
                <dd>
                  <code>{each.dnsRecord.value}</code>{' '}
                  <CopyButton text={each.dnsRecord.value} label="Copy value" context="of the TXT record" />
                </dd>
              </dl>
              <p className="small muted">
                Or serve <code>{each.httpFile.url}</code> holding the same value.
              </p>
            </>
          )}
          {each.lastError && <p className="small notice">Last check: {each.lastError}</p>}
          <div className="row">
            <button type="button" className="button button-small" onClick={() => verify.mutate(each.id)}>
              Check now<span className="visually-hidden"> {each.domain}</span>
            </button>
            <button type="button" className="button button-small" onClick={() => remove.mutate(each.id)}>
              Remove<span className="visually-hidden"> {each.domain}</span>
            </button>
          </div>
        </div>
      ))}
      <ErrorNotice error={verify.error ?? remove.error} />
      <form className="form" onSubmit={submit}>
        <label htmlFor="claim-domain">Claim a domain</label>
        <input
          id="claim-domain"
          value={domain}
          placeholder="acme.com"
          onChange={(event) => setDomain(event.target.value)}
          required
        />
        <ErrorNotice error={claim.error} />
        <button type="submit" className="button button-primary" disabled={claim.isPending}>
          Claim
        </button>
      </form>
    </section>
  );
}

function ScimToken() {
  const queryClient = useQueryClient();
  const [shown, setShown] = useState<string | null>(null);
  const token = useQuery({
    queryKey: ['scim-token'],
    queryFn: async ({ signal }) => unwrap(await api.GET('/api/v1/scim/token', { signal })).data,
  });
  const refresh = () => queryClient.invalidateQueries({ queryKey: ['scim-token'] });
  const rotate = useMutation({
    mutationFn: async () => unwrap(await api.POST('/api/v1/scim/token')).data,
    onSuccess: (made) => {
      setShown(made.token);
      return refresh();
    },
  });
  const revoke = useMutation({
    mutationFn: async () => unwrap(await api.DELETE('/api/v1/scim/token')),
    onSuccess: () => {
      setShown(null);
      return refresh();
    },
  });
  const base = `${window.location.origin}/scim/v2`;
  return (
    <section className="card" aria-labelledby="scim-heading">
      <h2 id="scim-heading">SCIM provisioning</h2>
      <p className="small break-anywhere">
        Base URL <code>{base}</code> <CopyButton text={base} label="Copy URL" context="for SCIM" />
      </p>
      <ErrorNotice error={token.error ?? rotate.error ?? revoke.error} retry={token.refetch} />
      {shown && (
        <div className="notice" role="status">
          <p>Copy the token now: it is shown once.</p>
          <code data-testid="scim-token">{shown}</code>{' '}
          <CopyButton text={shown} label="Copy token" context="for SCIM" />
        </div>
      )}
      {token.data === null && <p className="muted">No SCIM token yet.</p>}
      {token.data && (
        <p className="small">
          Token <code>{token.data.tokenStart}…</code> made {new Date(token.data.createdAt).toLocaleString()}
        </p>
      )}
      <div className="row">
        <button type="button" className="button button-primary" onClick={() => rotate.mutate()}>
          {token.data ? 'Rotate the token' : 'Make a token'}
        </button>
        {token.data && (
          <button type="button" className="button" onClick={() => revoke.mutate()}>
            Revoke
          </button>
        )}
      </div>
    </section>
  );
}
