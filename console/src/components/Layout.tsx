import { useEffect, useRef, useState } from 'react';
import { Link, NavLink, Outlet, useLocation, useNavigate } from 'react-router';
import { useMe, useSession, useSignOut } from '../session.js';
import { OrganizationSwitcher } from './OrganizationSwitcher.js';

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
  // On a phone (≤ 640 px, see .menu-button in styles.css) the navigation and the account fold behind one
  // menu button; at wider widths the button is hidden and the navigation is a row. Any navigation closes
  // it, and so does Escape (focus goes back to the button, which is what a user expects after Escape).
  const [menuOpen, setMenuOpen] = useState(false);
  const menuButton = useRef<HTMLButtonElement>(null);
  // biome-ignore lint/correctness/useExhaustiveDependencies: closes on each change of page, by design
  useEffect(() => setMenuOpen(false), [location.pathname, location.search]);
  useEffect(() => {
    if (!menuOpen) return;
    const onKey = (event: KeyboardEvent) => {
      if (event.key !== 'Escape') return;
      setMenuOpen(false);
      menuButton.current?.focus();
    };
    document.addEventListener('keydown', onKey);
    return () => document.removeEventListener('keydown', onKey);
  }, [menuOpen]);
  return (
    <>
      <a className="skip-link" href="#main">
        Skip to content
      </a>
      <header className="site-header">
        <div className="container header-row" data-menu-open={menuOpen ? 'true' : undefined}>
          <Link to="/" className="brand" aria-label="Cadre home">
            <img src="/favicon.svg" alt="" width="24" height="24" />
            <span>Cadre</span>
          </Link>
          <button
            ref={menuButton}
            type="button"
            className="button button-small menu-button"
            aria-expanded={menuOpen}
            aria-controls="main-menu account-menu"
            onClick={() => setMenuOpen((open) => !open)}
          >
            <span aria-hidden="true" className="menu-icon" />
            Menu
          </button>
          <nav aria-label="Main" className="main-nav" id="main-menu">
            <NavLink to="/" end>
              Registry
            </NavLink>
            <NavLink to="/playground">Playground</NavLink>
            {session.data && (
              <>
                <NavLink to="/home">Home</NavLink>
                <NavLink to="/keys">API keys</NavLink>
                <NavLink to="/projects">Projects</NavLink>
                {me.data?.permissions.includes('publish-policy:read') && (
                  <NavLink to="/publishing">Publishing</NavLink>
                )}
                <NavLink to="/connections">Connections</NavLink>
                {me.data?.permissions.includes('integrations:manage') && (
                  <NavLink to="/integrations">Integrations</NavLink>
                )}
                <NavLink to="/billing">Billing</NavLink>
                {me.data?.permissions.includes('audit:read') && <NavLink to="/audit">Audit</NavLink>}
                {/* Webhooks and events, one entry: their pages carry their own small menu. */}
                {(me.data?.permissions.includes('webhooks:manage') ||
                  me.data?.permissions.includes('events:read')) && (
                  <NavLink to="/developers">Developers</NavLink>
                )}
                <NavLink to="/members">Members</NavLink>
                <NavLink to="/settings">Settings</NavLink>
              </>
            )}
          </nav>
          <div className="account" id="account-menu">
            {session.data ? (
              <>
                <span className="account-name" title={session.data.user.email}>
                  <OrganizationSwitcher />
                  <span className="muted"> · {session.data.user.email}</span>
                </span>
                <button
                  type="button"
                  className="button button-small"
                  onClick={() => {
                    setMenuOpen(false);
                    signOut.mutate(undefined, { onSettled: () => navigate('/') });
                  }}
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
