import { useContext, useEffect, useRef, useState } from 'react';
import { Link, matchRoutes, Outlet, useLocation, useNavigate } from 'react-router';
import { type Me, type Permission, useMe, useSession, useSignOut } from '../session.js';
import { OrganizationSwitcher } from './OrganizationSwitcher.js';
import { documentTitle, PageHandles } from './page-title.js';

interface NavEntry {
  to: string;
  label: string;
  /** The paths this entry is "here" for (an Expert's page is the registry's). */
  matches: (path: string) => boolean;
  /** Shown only to those with this permission (read from GET /api/v1/me). */
  permission?: Permission;
  signedIn?: boolean;
  /** A page the server serves itself (the API reference), not one of the console's. */
  external?: boolean;
}
interface NavGroup {
  label: string;
  entries: NavEntry[];
}

const under = (prefix: string) => (path: string) => path === prefix || path.startsWith(`${prefix}/`);

/**
 * The grouped navigation (docs/console.md, "The shell"): what a person finds where. Groups and entries
 * keep their place whatever page is open; an entry the person's role cannot use is not shown at all.
 */
const NAVIGATION: NavGroup[] = [
  {
    label: 'Registry',
    entries: [
      { to: '/', label: 'Experts', matches: (path) => path === '/' || path.startsWith('/experts/') },
      {
        to: '/publishing',
        label: 'Publishing',
        matches: under('/publishing'),
        permission: 'publish-policy:read',
      },
      { to: '/mcp-catalog', label: 'MCP catalog', matches: under('/mcp-catalog'), permission: 'mcp:read' },
      { to: '/playground', label: 'Playground', matches: under('/playground') },
    ],
  },
  {
    label: 'Organization',
    entries: [
      { to: '/home', label: 'Home', matches: under('/home'), signedIn: true },
      { to: '/projects', label: 'Projects', matches: under('/projects'), signedIn: true },
      { to: '/members', label: 'Members', matches: under('/members'), signedIn: true },
      { to: '/connections', label: 'Connections', matches: under('/connections'), signedIn: true },
      {
        to: '/integrations',
        label: 'Integrations',
        matches: under('/integrations'),
        permission: 'integrations:manage',
      },
    ],
  },
  {
    label: 'Developers',
    entries: [
      { to: '/keys', label: 'API keys', matches: under('/keys'), signedIn: true },
      {
        to: '/developers/webhooks',
        label: 'Webhooks',
        matches: under('/developers/webhooks'),
        permission: 'webhooks:manage',
      },
      {
        to: '/developers/events',
        label: 'Events',
        matches: under('/developers/events'),
        permission: 'events:read',
      },
      { to: '/audit', label: 'Audit log', matches: under('/audit'), permission: 'audit:read' },
      { to: '/docs', label: 'API reference', matches: () => false, external: true },
    ],
  },
  {
    label: 'Settings',
    entries: [
      { to: '/billing', label: 'Billing', matches: under('/billing'), signedIn: true },
      { to: '/settings', label: 'Settings', matches: under('/settings'), signedIn: true },
    ],
  },
];

function visible(entry: NavEntry, signedIn: boolean, me: Me | undefined): boolean {
  if (entry.permission) return signedIn && Boolean(me?.permissions.includes(entry.permission));
  return !entry.signedIn || signedIn;
}

/**
 * Focus on a page: after a change of page its heading takes focus, when it is shown (a page that waits for
 * its data shows its heading with the data, and may replace a first heading with another); and whenever
 * focus falls back to <body> (the control that had it was removed: a row deleted, a form closed), the
 * heading takes it, so keyboard and screen reader users are never dropped at the top of the document.
 */
function focusOnPage(headingFirst: boolean): () => void {
  const main = document.getElementById('main');
  if (!main) return () => undefined;
  let pending = headingFirst;
  // The element that last had focus: when it leaves the document, focus has nowhere sensible to be.
  let last: Element | null = document.activeElement;
  const remember = (event: FocusEvent) => {
    last = event.target as Element;
  };
  const check = () => {
    const active = document.activeElement;
    const dropped = (!active || active === document.body) && last !== null && !last.isConnected;
    if (!pending && !dropped) return;
    const heading = main.querySelector<HTMLElement>('h1');
    if (!heading) return;
    pending = false;
    if (heading !== active) heading.focus({ preventScroll: true });
  };
  check();
  const observer = new MutationObserver(check);
  observer.observe(main, { childList: true, subtree: true });
  document.addEventListener('focusin', remember);
  return () => {
    observer.disconnect();
    document.removeEventListener('focusin', remember);
  };
}

export function Layout() {
  const session = useSession();
  const me = useMe();
  const signOut = useSignOut();
  const navigate = useNavigate();
  const location = useLocation();
  const routes = useContext(PageHandles);
  // Moving to another page puts focus on its main heading, so keyboard and screen reader users start
  // there; the first page of a visit leaves focus where the browser put it (the skip link comes first).
  const firstPage = useRef(true);
  // biome-ignore lint/correctness/useExhaustiveDependencies: runs on each change of page, by design
  useEffect(() => {
    const first = firstPage.current;
    firstPage.current = false;
    return focusOnPage(!first);
  }, [location.pathname]);
  const handle = matchRoutes([...routes], location)?.at(-1)?.route.handle;
  const organizationName = session.data?.organization.name;
  useEffect(() => {
    document.title = documentTitle(handle, location.pathname, organizationName);
  }, [handle, location.pathname, organizationName]);
  const here = `${location.pathname}${location.search}`;
  // Below 900 px (see .menu-button in styles.css) the navigation and the account fold behind one menu
  // button; wider, the navigation is a column on the left. Any navigation closes it, and so does Escape
  // (focus goes back to the button, which is what a user expects after Escape).
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
  const signedIn = Boolean(session.data);
  return (
    <div className="shell" data-menu-open={menuOpen ? 'true' : undefined}>
      <a className="skip-link" href="#main">
        Skip to content
      </a>
      <header className="site-header">
        <div className="header-row">
          <Link to="/" className="brand" aria-label="Cadre home">
            <img src="/favicon.svg" alt="" width="24" height="24" />
            <span>Cadre</span>
          </Link>
          {/* The organization switcher's place (components/OrganizationSwitcher.tsx, built separately):
              the signed-in organization, next to the brand, on every page and at every width. */}
          <div className="header-organization">
            <OrganizationSwitcher />
          </div>
          <button
            ref={menuButton}
            type="button"
            className="button menu-button"
            aria-expanded={menuOpen}
            aria-controls="main-menu account-menu"
            onClick={() => setMenuOpen((open) => !open)}
          >
            <span aria-hidden="true" className="menu-icon" />
            Menu
          </button>
          <div className="account" id="account-menu">
            {session.data ? (
              <>
                <span className="account-email muted" title={session.data.user.email}>
                  {session.data.user.email}
                </span>
                <button
                  type="button"
                  className="button"
                  onClick={() => {
                    setMenuOpen(false);
                    signOut.mutate(undefined, { onSettled: () => navigate('/') });
                  }}
                >
                  Sign out
                </button>
              </>
            ) : session.isPending ? null : (
              <Link className="button" to={`/sign-in?next=${encodeURIComponent(here)}`}>
                Sign in
              </Link>
            )}
          </div>
        </div>
      </header>
      <div className="shell-body">
        <nav aria-label="Main" className="side-nav" id="main-menu">
          {NAVIGATION.map((group) => {
            const entries = group.entries.filter((entry) => visible(entry, signedIn, me.data));
            if (entries.length === 0) return null;
            return (
              <div key={group.label} className="nav-group">
                <p className="nav-group-label" id={`nav-${group.label}`}>
                  {group.label}
                </p>
                <ul aria-labelledby={`nav-${group.label}`}>
                  {entries.map((entry) => {
                    const current = entry.matches(location.pathname);
                    if (entry.external) {
                      return (
                        <li key={entry.to}>
                          <a href={entry.to}>{entry.label}</a>
                        </li>
                      );
                    }
                    return (
                      <li key={entry.to}>
                        <Link
                          to={entry.to}
                          className={current ? 'active' : undefined}
                          aria-current={current ? 'page' : undefined}
                          // Closing here too (not only in the effect on the path) closes the menu in the same
                          // render as the new page, so it is never seen open over the page it led to.
                          onClick={() => setMenuOpen(false)}
                        >
                          {entry.label}
                        </Link>
                      </li>
                    );
                  })}
                </ul>
              </div>
            );
          })}
        </nav>
        <div className="shell-content">
          <main id="main" className="container">
            <Outlet />
          </main>
          <footer className="site-footer container small">
            <span>Cadre</span>
            <a href="/docs">API reference</a>
            <a href="/openapi.json">OpenAPI</a>
          </footer>
        </div>
      </div>
    </div>
  );
}
