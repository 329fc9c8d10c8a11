import { useEffect, useRef } from 'react';
import { Link, NavLink, Outlet, useLocation, useNavigate } from 'react-router';
import { useMe, useSession, useSignOut } from '../session.js';

export function Layout() {
  const session = useSession();
  const me = useMe();
  const signOut = useSignOut();
  const navigate = useNavigate();
  const location = useLocation();
  // Moving to another page puts focus on its main heading, so keyboard and screen reader users start
  // there; the first page of a visit leaves focus where the browser put it (the skip link comes first).
  const firstPage = useRef(true);
  // biome-ignore lint/correctness/useExhaustiveDependencies: runs on each change of page, by design
  useEffect(() => {
    if (firstPage.current) {
      firstPage.current = false;
      return;
    }
    document.querySelector<HTMLElement>('main h1')?.focus({ preventScroll: true });
  }, [location.pathname]);
  const here = `${location.pathname}${location.search}`;
  return (
    <>
      <a className="skip-link" href="#main">
        Skip to content
      </a>
      <header className="site-header">
        <div className="container header-row">
          <Link to="/" className="brand" aria-label="Cadre home">
            <img src="/favicon.svg" alt="" width="24" height="24" />
            <span>Cadre</span>
          </Link>
          <nav aria-label="Main" className="main-nav">
            <NavLink to="/" end>
              Registry
            </NavLink>
            <NavLink to="/playground">Playground</NavLink>
            {session.data && (
              <>
                <NavLink to="/home">Home</NavLink>
                <NavLink to="/keys">API keys</NavLink>
                <NavLink to="/connections">Connections</NavLink>
                <NavLink to="/billing">Billing</NavLink>
                {me.data?.permissions.includes('audit:read') && <NavLink to="/audit">Audit</NavLink>}
                <NavLink to="/members">Members</NavLink>
                <NavLink to="/settings">Settings</NavLink>
              </>
            )}
          </nav>
          <div className="account">
            {session.data ? (
              <>
                <span className="account-name" title={session.data.user.email}>
                  {session.data.organization.name}
                  <span className="muted"> · {session.data.user.email}</span>
                </span>
                <button
                  type="button"
                  className="button button-small"
                  onClick={() => signOut.mutate(undefined, { onSettled: () => navigate('/') })}
                >
                  Sign out
                </button>
              </>
            ) : session.isPending ? null : (
              <Link className="button button-small" to={`/sign-in?next=${encodeURIComponent(here)}`}>
                Sign in
              </Link>
            )}
          </div>
        </div>
      </header>
      <main id="main" className="container">
        <Outlet />
      </main>
      <footer className="site-footer container muted small">
        Cadre · <a href="/docs">API reference</a> · <a href="/openapi.json">OpenAPI</a>
      </footer>
    </>
  );
}
