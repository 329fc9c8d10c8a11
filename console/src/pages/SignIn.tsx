import { type FormEvent, useState } from 'react';
import { Navigate, useNavigate, useSearchParams } from 'react-router';
import { ErrorNotice } from '../components/ErrorNotice.js';
import { safeNext, useSession, useSignIn } from '../session.js';

export function SignIn() {
  const [params] = useSearchParams();
  const next = safeNext(params.get('next') ?? '/home');
  const session = useSession();
  const signIn = useSignIn();
  const navigate = useNavigate();
  const [email, setEmail] = useState('');
  const [password, setPassword] = useState('');
  if (session.data) return <Navigate to={next} replace />;
  const submit = (event: FormEvent) => {
    event.preventDefault();
    signIn.mutate({ email, password }, { onSuccess: () => navigate(next, { replace: true }) });
  };
  return (
    <section className="page narrow">
      <h1 tabIndex={-1}>Sign in</h1>
      {params.get('expired') && (
        <p className="notice" role="status">
          Your session has ended. Sign in again to continue where you were.
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
        />
        <label htmlFor="password">Password</label>
        <input
          id="password"
          type="password"
          autoComplete="current-password"
          required
          value={password}
          onChange={(event) => setPassword(event.target.value)}
        />
        <ErrorNotice
          error={signIn.error}
          title={
            signIn.error && 'status' in signIn.error && signIn.error.status === 401
              ? 'Wrong email or password.'
              : undefined
          }
        />
        <button type="submit" className="button button-primary" disabled={signIn.isPending}>
          {signIn.isPending ? 'Signing in…' : 'Sign in'}
        </button>
      </form>
      <p className="muted small">
        On a fresh local start, the demo owner is <code>demo@localhost</code>; its password is in{' '}
        <code>.cadre-data/bootstrap.json</code> (see the README).
      </p>
    </section>
  );
}
