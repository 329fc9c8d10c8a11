import { useMutation, useQuery } from '@tanstack/react-query';
import { type FormEvent, useState } from 'react';
import { Link, useNavigate, useParams } from 'react-router';
import { ApiProblem, api, toProblem, unwrap } from '../api/client.js';
import type { components } from '../api/schema.js';
import { ErrorNotice } from '../components/ErrorNotice.js';
import { formatDate } from '../format.js';
import { useSignIn } from '../session.js';

type Preview = components['schemas']['InvitationPreview'];

const sentence = (text: string) => (/[.!?]$/.test(text) ? text : `${text}.`);
const GONE: Record<string, Preview['state']> = {
  invitation_used: 'accepted',
  invitation_revoked: 'revoked',
  invitation_expired: 'expired',
};

/**
 * The invitation link (`/invitations/<token>`), public: who invites whom, then joining — a new account
 * chooses a name and a password, an existing one gives its password — and landing signed in on /home.
 */
export function Invitation() {
  const { token = '' } = useParams();
  const navigate = useNavigate();
  const signIn = useSignIn();
  const [name, setName] = useState('');
  const [password, setPassword] = useState('');
  const preview = useQuery({
    queryKey: ['invitation', token],
    queryFn: async ({ signal }) =>
      unwrap(await api.GET('/auth/invitations/{token}', { params: { path: { token } }, signal })).data,
    retry: false,
  });
  const accept = useMutation({
    // A 401 here is about this link, not an ended session: no redirect to sign-in.
    meta: { signIn: true },
    mutationFn: async (invitation: Preview) => {
      const result = await api.POST('/auth/invitations/{token}/accept', {
        params: { path: { token } },
        body: invitation.account === 'new' ? { name, password } : { password },
      });
      if (!result.response.ok) throw toProblem(result.response, result.error);
      const joined = unwrap(result).data;
      // Joined: sign in to the organization just joined (a session of another one is replaced).
      await signIn.mutateAsync({ email: invitation.email, password, organization: joined.organization.id });
      return joined;
    },
    onSuccess: () => navigate('/home', { replace: true }),
  });

  if (preview.isPending) {
    return (
      <section className="page narrow">
        <h1 tabIndex={-1}>Invitation</h1>
        <p className="muted" aria-busy="true">
          Reading the invitation…
        </p>
      </section>
    );
  }
  if (preview.isError) {
    const notFound = preview.error instanceof ApiProblem && preview.error.status === 404;
    return (
      <section className="page narrow">
        <h1 tabIndex={-1}>Invitation</h1>
        {notFound ? (
          <div className="card">
            <p>This invitation link is not valid. Check that you copied all of it, or ask for a new one.</p>
          </div>
        ) : (
          <ErrorNotice error={preview.error} />
        )}
      </section>
    );
  }
  const invitation = preview.data;
  // A link that became unusable while this page was open answers 410: the same words as on arrival.
  const goneCode = accept.error instanceof ApiProblem ? accept.error.code : '';
  const state = GONE[goneCode] ?? invitation.state;
  if (state !== 'pending') {
    return (
      <section className="page narrow">
        <h1 tabIndex={-1}>Invitation to {invitation.organization.name}</h1>
        <div className="card">
          {/* The API's sentence says both why and what to do next ("… Ask them for a new one"). */}
          <p className="notice notice-warning" role="status">
            {sentence(
              state === invitation.state
                ? invitation.message
                : accept.error instanceof Error
                  ? accept.error.message
                  : '',
            )}
          </p>
          {state === 'accepted' && (
            <p>
              <Link to="/sign-in?next=/home">Sign in</Link>
            </p>
          )}
        </div>
      </section>
    );
  }
  const isNew = invitation.account === 'new';
  const submit = (event: FormEvent) => {
    event.preventDefault();
    accept.mutate(invitation);
  };
  const busy = accept.isPending;
  // An existing account's wrong password is said once, plainly (the API's 422 names the field password).
  const wrongPassword =
    !isNew &&
    accept.error instanceof ApiProblem &&
    accept.error.status === 422 &&
    accept.error.details.some((detail) => detail.path === 'password');
  return (
    <section className="page narrow">
      <h1 tabIndex={-1}>Join {invitation.organization.name}</h1>
      {/* An email is one unbroken word: it may break anywhere rather than push the page sideways. */}
      <p className="break-anywhere">
        You are invited to <strong>{invitation.organization.name}</strong> as{' '}
        {invitation.role === 'admin' ? 'an admin' : 'a member'}, for <strong>{invitation.email}</strong>. The
        link works until {formatDate(invitation.expiresAt)}.
      </p>
      <form className="form card" onSubmit={submit}>
        {isNew ? (
          <>
            <p className="muted small">
              Create your Cadre account: choose the name others see and a password.
            </p>
            <label htmlFor="join-email">Email</label>
            <input id="join-email" type="email" autoComplete="username" value={invitation.email} readOnly />
            <label htmlFor="join-name">Your name</label>
            <input
              id="join-name"
              autoComplete="name"
              required
              maxLength={200}
              value={name}
              onChange={(event) => setName(event.target.value)}
            />
            <label htmlFor="join-password">Password</label>
            <input
              id="join-password"
              type="password"
              autoComplete="new-password"
              required
              minLength={12}
              aria-describedby="join-password-hint"
              value={password}
              onChange={(event) => setPassword(event.target.value)}
            />
            <p id="join-password-hint" className="muted small">
              At least 12 characters.
            </p>
          </>
        ) : (
          <>
            <p className="muted small">
              {invitation.email} already has a Cadre account: sign in with its password to join.
            </p>
            <label htmlFor="join-email">Email</label>
            <input id="join-email" type="email" autoComplete="username" value={invitation.email} readOnly />
            <label htmlFor="join-password">Password</label>
            <input
              id="join-password"
              type="password"
              autoComplete="current-password"
              required
              value={password}
              onChange={(event) => setPassword(event.target.value)}
            />
          </>
        )}
        {wrongPassword ? (
          <p className="notice notice-error" role="alert">
            That is not the password of {invitation.email}. Try again.
          </p>
        ) : (
          <ErrorNotice
            error={accept.error}
            title={
              accept.error instanceof ApiProblem && accept.error.status === 409 && !isNew
                ? 'This account cannot join with a password yet.'
                : undefined
            }
          />
        )}
        <button type="submit" className="button button-primary" disabled={busy}>
          {busy ? 'Joining…' : isNew ? 'Create account and join' : 'Sign in and join'}
        </button>
      </form>
    </section>
  );
}
