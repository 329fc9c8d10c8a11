import { useMutation, useQuery } from '@tanstack/react-query';
import { type FormEvent, useState } from 'react';
import { useSearchParams } from 'react-router';
import { api, unwrap } from '../api/client.js';
import type { components } from '../api/schema.js';
import { ErrorNotice } from '../components/ErrorNotice.js';
import { PageSkeleton } from '../components/PageSkeleton.js';
import { PERMISSION_AREAS } from '../generated/permission-areas.js';
import { useMe } from '../session.js';

type Grant = components['schemas']['Grant'];
const DAY_S = 86_400;
const EXPIRY = { '30': 'In 30 days', '90': 'In 90 days', never: 'Never' } as const;

/**
 * `cadre login`'s approval (docs/api-keys.md, "cadre login"): the person checks the code their terminal shows,
 * chooses the key's rights and expiry, and approves; the CLI then holds a key of its own, named after its
 * machine, in this organization.
 */
export function CliLogin() {
  const [params, setParams] = useSearchParams();
  const code = params.get('code') ?? '';
  const [typed, setTyped] = useState('');
  const [rights, setRights] = useState<'everything' | 'read'>('everything');
  const [expiry, setExpiry] = useState<keyof typeof EXPIRY>('90');
  const me = useMe();
  const request = useQuery({
    queryKey: ['cli-login', code],
    enabled: code !== '',
    retry: false,
    queryFn: async () =>
      unwrap(await api.GET('/auth/cli-logins/{userCode}', { params: { path: { userCode: code } } })).data,
  });
  // Read only: the read level of every area the role can read.
  const readOnly = PERMISSION_AREAS.flatMap(({ levels: [lowest] }) =>
    lowest?.id === 'read' ? lowest.permissions : [],
  ).filter((p) => me.data?.permissions.includes(p));
  const grants: Grant = { type: 'organization', permissions: rights === 'everything' ? ['*'] : readOnly };
  const decide = useMutation({
    mutationFn: async (approve: boolean) => {
      const path = { userCode: code };
      if (!approve)
        return unwrap(await api.POST('/auth/cli-logins/{userCode}/deny', { params: { path } })).data;
      const body = { grants, ...(expiry === 'never' ? {} : { expiresIn: Number(expiry) * DAY_S }) };
      return unwrap(await api.POST('/auth/cli-logins/{userCode}/approve', { params: { path }, body })).data;
    },
  });

  if (!code) {
    const submit = (event: FormEvent) => {
      event.preventDefault();
      setParams({ code: typed.trim() });
    };
    return (
      <section className="page">
        <h1 tabIndex={-1}>Sign in the CLI</h1>
        <form className="form card" onSubmit={submit}>
          <label htmlFor="cli-code">The code your terminal shows</label>
          <input id="cli-code" required value={typed} onChange={(event) => setTyped(event.target.value)} />
          <button type="submit" className="button button-primary">
            Continue
          </button>
        </form>
      </section>
    );
  }
  if (decide.data) {
    return (
      <section className="page">
        <h1 tabIndex={-1}>{decide.variables ? 'The CLI is signed in' : 'Sign-in refused'}</h1>
        <p role="status">
          {decide.variables
            ? 'You can close this tab: the terminal has its key. It is listed with your API keys.'
            : 'The terminal was told no; nothing was created.'}
        </p>
      </section>
    );
  }
  return (
    <section className="page">
      <h1 tabIndex={-1}>Sign in the CLI</h1>
      <ErrorNotice error={request.error} />
      {request.isPending && <PageSkeleton lines={3} />}
      {request.data && me.data && (
        <div className="form card">
          <p>
            <strong>{request.data.name}</strong> asks for a key in{' '}
            <strong>{me.data.organization.name}</strong> as you ({me.data.role}). Check that your terminal
            shows this code:
          </p>
          <p className="key-row">
            <code className="key" data-testid="cli-code">
              {request.data.userCode}
            </code>
          </p>
          <fieldset className="fieldset">
            <legend>Rights</legend>
            <label className="check">
              <input
                type="radio"
                name="rights"
                checked={rights === 'everything'}
                onChange={() => setRights('everything')}
              />
              Everything your role allows ({me.data.role})
            </label>
            <label className="check">
              <input
                type="radio"
                name="rights"
                checked={rights === 'read'}
                onChange={() => setRights('read')}
              />
              Read only
            </label>
          </fieldset>
          <label htmlFor="cli-expiry">Expires</label>
          <select
            id="cli-expiry"
            value={expiry}
            onChange={(event) => setExpiry(event.target.value as keyof typeof EXPIRY)}
          >
            {Object.entries(EXPIRY).map(([value, label]) => (
              <option key={value} value={value}>
                {label}
              </option>
            ))}
          </select>
          <ErrorNotice error={decide.error} />
          <div className="actions">
            <button
              type="button"
              className="button button-primary"
              disabled={decide.isPending}
              onClick={() => decide.mutate(true)}
            >
              Approve
            </button>
            <button
              type="button"
              className="button"
              disabled={decide.isPending}
              onClick={() => decide.mutate(false)}
            >
              Deny
            </button>
          </div>
        </div>
      )}
    </section>
  );
}
