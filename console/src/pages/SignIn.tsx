import { useQuery } from '@tanstack/react-query';
import { type FormEvent, useState } from 'react';
import { Navigate, useNavigate, useSearchParams } from 'react-router';
import { ApiProblem, api, unwrap } from '../api/client.js';
import { ErrorNotice } from '../components/ErrorNotice.js';
import { safeNext, useSession, useSignIn, useSwitchOrganization } from '../session.js';
import { clearSessionEnded, sessionEnded } from '../session-ended.js';

/** What the sign-in page says for each refusal of the identity provider's callback (docs/sso.md). */
const SSO_ERRORS: Record<string, string> = {
  invalid_state: 'That sign-in link expired or was already used. Start again.',
  email_not_verified: 'Your identity provider did not confirm your email address.',
  domain_not_verified: "Your email's domain is not verified for this organization's single sign-on.",
  invalid_id_token: 'Your identity provider’s answer could not be verified.',
  provider_error: 'Your identity provider refused the sign-in.',
  unreachable: 'Your identity provider could not be reached. Try again later.',
  not_configured: 'Single sign-on is no longer set up for this organization.',
};

export function SignIn() {
  const [params] = useSearchParams();
  const next = safeNext(params.get('next') ?? '/home');
  const session = useSession();
  const signIn = useSignIn();
  const navigate = useNavigate();
  const [email, setEmail] = useState('');
  const [password, setPassword] = useState('');
  // The demo hint only while the demo owner's generated password still works (the server checks).
  const hints = useQuery({
    queryKey: ['sign-in-hints'],
    queryFn: async () => unwrap(await api.GET('/auth/sign-in-hints')).data,
    staleTime: 60_000,
  });
  // Single sign-on: once the email is typed, ask whether its domain signs in through a provider (docs/sso.md).
  const [routedEmail, setRoutedEmail] = useState('');
  const ssoRoute = useQuery({
    queryKey: ['sso-route', routedEmail],
    queryFn: async () =>
      unwrap(await api.GET('/auth/sso/route', { params: { query: { email: routedEmail } } })).data,
    enabled: /^[^@\s]+@[^@\s]+\.[^@\s]+$/.test(routedEmail),
    staleTime: 60_000,
  });
  const ssoError = params.get('sso_error');
  const switchTo = useSwitchOrganization();
  // Set by this page's own sign-in: a person in several organizations then chooses one before going on.
  const [signedInHere, setSignedInHere] = useState(false);
  if (session.data && signedInHere && session.data.organizations.length > 1) {
    const current = session.data.organization.id;
    const go = (organization: string) =>
      organization === current
        ? navigate(next, { replace: true })
        : switchTo.mutate(organization, { onSuccess: () => navigate(next, { replace: true }) });
    return (
      <section className="page sign-in">
        <h1 tabIndex={-1}>Choose an organization</h1>
        <p className="muted">You belong to several; you can switch later from the header.</p>
        <ul className="organization-choices">
          {session.data.organizations.map((o) => (
            <li key={o.id}>
              <button type="button" className="button" disabled={switchTo.isPending} onClick={() => go(o.id)}>
                {o.name} <span className="muted">({o.role})</span>
              </button>
            </li>
          ))}
        </ul>
        <ErrorNotice error={switchTo.error} />
      </section>
    );
  }
  if (session.data) return <Navigate to={next} replace />;
  const submit = (event: FormEvent) => {
    event.preventDefault();
    setSignedInHere(true);
    signIn.mutate(
      { email, password },
      {
        onSuccess: (signedIn) => {
          clearSessionEnded();
          if (signedIn.organizations.length < 2) navigate(next, { replace: true });
        },
      },
    );
  };
  return (
    <section className="page sign-in">
      <h1 tabIndex={-1}>Sign in</h1>
      {/* One message at a time: once a sign-in attempt fails, its error replaces the session notice. */}
      {(params.get('expired') || sessionEnded()) && !signIn.error && (
        <p className="notice" role="status">
          Your session has ended. Sign in again to continue where you were.
        </p>
      )}
      {ssoError && (
        <p className="notice notice-error" role="alert">
          {SSO_ERRORS[ssoError] ?? 'Single sign-on did not complete. Try again, or ask your administrator.'}
        </p>
      )}
      <form className="form card" onSubmit={submit}>
        <label htmlFor="email">Email</label>
        <input
          id="email"
          type="email"
          autoComplete="username"
          required
          value={email}
          onChange={(event) => setEmail(event.target.value)}
          onBlur={() => setRoutedEmail(email.trim())}
        />
        {ssoRoute.data?.sso && routedEmail === email.trim() && (
          <a
            className="button button-primary"
            href={`/auth/sso/start?${new URLSearchParams({ email: routedEmail, returnTo: next })}`}
          >
            Continue with single sign-on
          </a>
        )}
        <label htmlFor="password">Password</label>
        <input
          id="password"
          type="password"
          autoComplete="current-password"
          required
          value={password}
          onChange={(event) => setPassword(event.target.value)}
        />
        {/* A wrong email or password is said once, in words; any other failure keeps its details. */}
        {signIn.error instanceof ApiProblem && signIn.error.status === 401 ? (
          <p className="notice notice-error" role="alert">
            Wrong email or password.
          </p>
        ) : (
          <ErrorNotice error={signIn.error} />
        )}
        <button type="submit" className="button button-primary" disabled={signIn.isPending}>
          {signIn.isPending ? 'Signing in…' : 'Sign in'}
        </button>
      </form>
      {hints.data?.demoPassword && (
        <p className="muted small">
          On a fresh local start, the demo owner is <code>demo@localhost</code>; its password is in{' '}
          <code>.cadre-data/bootstrap.json</code> (see the README).
        </p>
      )}
    </section>
  );
}
