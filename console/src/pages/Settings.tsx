import { useMutation, useQueryClient } from '@tanstack/react-query';
import { type FormEvent, useEffect, useState } from 'react';
import { ApiProblem, api, unwrap } from '../api/client.js';
import { ErrorNotice } from '../components/ErrorNotice.js';
import { PageHeader } from '../components/PageHeader.js';
import { useCan, useMe } from '../session.js';
import { IdentitySettings } from './IdentitySettings.js';

/** Your own name and password; the organization's name for its owner (organization:manage). */
export function Settings() {
  const me = useMe();
  const can = useCan();
  return (
    <section className="page narrow">
      <PageHeader title="Settings">
        Your account{can('organization:manage') ? ' and your organization' : ''}.
      </PageHeader>
      <div className="stack">
        {me.data && <NameForm current={me.data.user.name ?? ''} />}
        <PasswordForm />
        {me.data && can('organization:manage') && (
          <OrganizationForm org={me.data.organization.id} current={me.data.organization.name} />
        )}
        {can('organization:manage') && <IdentitySettings />}
      </div>
      <ErrorNotice error={me.error} />
    </section>
  );
}

/** After a rename, the header (session) and every page reading /api/v1/me show the new name. */
const useRefresh = () => {
  const client = useQueryClient();
  return () =>
    Promise.all([
      client.invalidateQueries({ queryKey: ['me'] }),
      client.invalidateQueries({ queryKey: ['session'] }),
      client.invalidateQueries({ queryKey: ['members'] }),
    ]);
};

function NameForm({ current }: { current: string }) {
  const refresh = useRefresh();
  const [name, setName] = useState(current);
  useEffect(() => setName(current), [current]);
  const save = useMutation({
    mutationFn: async () => unwrap(await api.PATCH('/api/v1/me', { body: { name } })),
    onSuccess: () => refresh(),
  });
  const submit = (event: FormEvent) => {
    event.preventDefault();
    save.mutate();
  };
  return (
    <form className="form card" onSubmit={submit} aria-labelledby="name-heading">
      <h2 id="name-heading">Your name</h2>
      <label htmlFor="settings-name">Name</label>
      <input
        id="settings-name"
        autoComplete="name"
        required
        maxLength={200}
        value={name}
        onChange={(event) => {
          setName(event.target.value);
          save.reset();
        }}
      />
      <ErrorNotice error={save.error} />
      <p role="status" className="success">
        {save.isSuccess ? 'Name saved.' : ''}
      </p>
      <div className="actions">
        <button type="submit" className="button button-primary" disabled={save.isPending}>
          {save.isPending ? 'Saving…' : 'Save name'}
        </button>
      </div>
    </form>
  );
}

function PasswordForm() {
  const [currentPassword, setCurrent] = useState('');
  const [newPassword, setNew] = useState('');
  const [repeat, setRepeat] = useState('');
  const change = useMutation({
    mutationFn: async () =>
      unwrap(await api.POST('/api/v1/me/password', { body: { currentPassword, newPassword } })),
    onSuccess: () => {
      setCurrent('');
      setNew('');
      setRepeat('');
    },
  });
  const mismatch = repeat.length > 0 && repeat !== newPassword;
  // A wrong current password is said once, plainly (the API's 422 names the field currentPassword).
  const wrongCurrent =
    change.error instanceof ApiProblem && change.error.details.some((d) => d.path === 'currentPassword');
  const submit = (event: FormEvent) => {
    event.preventDefault();
    if (!mismatch) change.mutate();
  };
  return (
    <form className="form card" onSubmit={submit} aria-labelledby="password-heading">
      <h2 id="password-heading">Password</h2>
      <label htmlFor="current-password">Current password</label>
      <input
        id="current-password"
        type="password"
        autoComplete="current-password"
        required
        value={currentPassword}
        onChange={(event) => setCurrent(event.target.value)}
      />
      <label htmlFor="new-password">New password</label>
      <input
        id="new-password"
        type="password"
        autoComplete="new-password"
        required
        minLength={12}
        aria-describedby="new-password-hint"
        value={newPassword}
        onChange={(event) => setNew(event.target.value)}
      />
      <p id="new-password-hint" className="muted small">
        At least 12 characters. Changing it signs you out everywhere else; this browser stays signed in.
      </p>
      <label htmlFor="repeat-password">New password again</label>
      <input
        id="repeat-password"
        type="password"
        autoComplete="new-password"
        required
        aria-invalid={mismatch}
        aria-describedby={mismatch ? 'repeat-password-error' : undefined}
        value={repeat}
        onChange={(event) => setRepeat(event.target.value)}
      />
      {mismatch && (
        <p id="repeat-password-error" className="notice-inline-error small">
          The two new passwords differ.
        </p>
      )}
      {wrongCurrent ? (
        <p className="notice notice-error" role="alert">
          The current password is wrong. Nothing was changed.
        </p>
      ) : (
        <ErrorNotice error={change.error} />
      )}
      <p role="status" className="success">
        {change.isSuccess
          ? 'Password changed. Your other sessions were signed out; API keys keep working.'
          : ''}
      </p>
      <div className="actions">
        <button type="submit" className="button button-primary" disabled={change.isPending || mismatch}>
          {change.isPending ? 'Changing…' : 'Change password'}
        </button>
      </div>
    </form>
  );
}

function OrganizationForm({ org, current }: { org: string; current: string }) {
  const refresh = useRefresh();
  const [name, setName] = useState(current);
  useEffect(() => setName(current), [current]);
  const save = useMutation({
    mutationFn: async () =>
      unwrap(await api.PATCH('/api/v1/organizations/{org}', { params: { path: { org } }, body: { name } })),
    onSuccess: () => refresh(),
  });
  const submit = (event: FormEvent) => {
    event.preventDefault();
    save.mutate();
  };
  return (
    <form className="form card" onSubmit={submit} aria-labelledby="organization-heading">
      <h2 id="organization-heading">Organization</h2>
      <label htmlFor="organization-name">Organization name</label>
      <input
        id="organization-name"
        required
        maxLength={200}
        aria-describedby="organization-name-hint"
        value={name}
        onChange={(event) => {
          setName(event.target.value);
          save.reset();
        }}
      />
      <p id="organization-name-hint" className="muted small">
        Only the name changes: the slug, which names your Experts in the registry, stays.
      </p>
      <ErrorNotice error={save.error} />
      <p role="status" className="success">
        {save.isSuccess ? 'Organization renamed.' : ''}
      </p>
      <div className="actions">
        <button type="submit" className="button button-primary" disabled={save.isPending}>
          {save.isPending ? 'Saving…' : 'Rename organization'}
        </button>
      </div>
    </form>
  );
}
