import { MutationCache, QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { type ComponentType, lazy, type ReactNode, StrictMode, Suspense } from 'react';
import { createRoot } from 'react-dom/client';
import { BrowserRouter, Navigate, type NavigateFunction, Route, Routes, useNavigate } from 'react-router';
import { ApiProblem, setCsrfToken } from './api/client.js';
import { Layout } from './components/Layout.js';
import { PageLoadBoundary } from './components/PageLoadBoundary.js';
import { PageSkeleton } from './components/PageSkeleton.js';
import { type PageHandle, PageHandles } from './components/page-title.js';
import { RequireSession } from './components/RequireSession.js';
import type { ConsolePath } from './generated/console-pages.js';
import { NotFound } from './pages/NotFound.js';
import { RegistryList } from './pages/RegistryList.js';
import { SignIn } from './pages/SignIn.js';
import { markSessionEnded } from './session-ended.js';
import './styles.css';

const queryClient: QueryClient = new QueryClient({
  // A change refused with 401 means the session ended (expired, signed out elsewhere, revoked): sign in
  // again, then come back to this page. Signing in itself answers 401 for a wrong password: not this.
  mutationCache: new MutationCache({
    onError: (error, _variables, _context, mutation) => {
      if (!(error instanceof ApiProblem) || error.status !== 401 || mutation.meta?.signIn) return;
      setCsrfToken(undefined);
      markSessionEnded();
      queryClient.setQueryData(['session'], null);
      const here = `${window.location.pathname}${window.location.search}`;
      void navigateOutside?.(`/sign-in?expired=1&next=${encodeURIComponent(here)}`);
    },
  }),
  defaultOptions: {
    queries: {
      // A 4xx will not change by asking again; a network failure or a 5xx may.
      retry: (count, error) => !(error instanceof ApiProblem && error.status < 500) && count < 2,
      refetchOnWindowFocus: false,
    },
  },
});

/**
 * The router runs in declarative mode (`<BrowserRouter>` and `<Routes>`): its data-router half (loaders,
 * actions, fetchers), which the console does not use, stays out of the first page's script, under its
 * gzipped budget (test/console/bundle-budget.test.ts). Navigations run in a transition, so the current page
 * stays on screen while the next page's code loads.
 */
interface ConsoleRoute {
  path: string;
  /** The page's name in the browser tab (components/page-title.ts). */
  handle?: PageHandle;
  element?: ReactNode;
  /** A page whose code is loaded when first opened. */
  lazy?: () => Promise<{ Component: ComponentType }>;
  /** A page of the organization: signed out, the person signs in first (RequireSession). */
  signedIn?: boolean;
}

/** The MutationCache's redirect runs outside React: the router's navigate, once the router is mounted. */
let navigateOutside: NavigateFunction | undefined;
function KeepNavigate() {
  navigateOutside = useNavigate();
  return null;
}

/** A page's code, loaded when first opened; a failed load (a new release since) says so. */
function loadedWhenOpened(load: NonNullable<ConsoleRoute['lazy']>, signedIn = false): ReactNode {
  const Page = lazy(async () => ({ default: (await load()).Component }));
  const page = signedIn ? (
    <RequireSession>
      <Page />
    </RequireSession>
  ) : (
    <Page />
  );
  return (
    <PageLoadBoundary>
      <Suspense
        fallback={
          <section className="page" aria-busy="true">
            <PageSkeleton heading />
          </section>
        }
      >
        {page}
      </Suspense>
    </PageLoadBoundary>
  );
}

/** A page of the organization, loaded when first opened. Signed out, the person signs in first. */
const signedIn = (load: () => Promise<ComponentType>): Pick<ConsoleRoute, 'lazy' | 'signedIn'> => ({
  lazy: async () => ({ Component: await load() }),
  signedIn: true,
});

// The console's pages. Their paths are exactly CONSOLE_PAGES, the list the server answers 200 for: a page
// whose path is not listed there, or a listed path without a page here, does not compile (below).
const PAGES = [
  { path: '/', handle: { title: 'Experts' }, element: <RegistryList /> },
  {
    path: '/experts/*',
    handle: { title: 'Expert' },
    lazy: async () => ({ Component: (await import('./pages/ExpertPage.js')).ExpertPage }),
  },
  // The playground carries the cadre.toml validator (zod, TOML, JSON Schema): loaded when opened.
  {
    path: '/playground',
    handle: { title: 'Playground' },
    lazy: async () => ({ Component: (await import('./pages/Playground.js')).Playground }),
  },
  { path: '/sign-in', handle: { title: 'Sign in' }, element: <SignIn /> },
  {
    path: '/home',
    handle: { title: 'Home', organization: true },
    ...signedIn(async () => (await import('./pages/Home.js')).Home),
  },
  {
    path: '/keys',
    handle: { title: 'API keys', organization: true },
    ...signedIn(async () => (await import('./pages/ApiKeys.js')).ApiKeys),
  },
  {
    path: '/billing',
    handle: { title: 'Billing', organization: true },
    ...signedIn(async () => (await import('./pages/Billing.js')).Billing),
  },
  {
    path: '/connections',
    handle: { title: 'Connections', organization: true },
    ...signedIn(async () => (await import('./pages/Connections.js')).Connections),
  },
  {
    path: '/projects',
    handle: { title: 'Projects', organization: true },
    ...signedIn(async () => (await import('./pages/Projects.js')).Projects),
  },
  {
    path: '/integrations',
    handle: { title: 'Integrations', organization: true },
    ...signedIn(async () => (await import('./pages/Integrations.js')).Integrations),
  },
  {
    path: '/audit',
    handle: { title: 'Audit log', organization: true },
    ...signedIn(async () => (await import('./pages/AuditLog.js')).AuditLog),
  },
  // The Developers group's old address opens its first page.
  { path: '/developers', element: <Navigate to="/developers/webhooks" replace /> },
  {
    path: '/developers/webhooks',
    handle: { title: 'Webhooks', organization: true },
    ...signedIn(async () => (await import('./pages/Webhooks.js')).Webhooks),
  },
  {
    path: '/developers/webhooks/:endpointId',
    handle: { title: 'Webhook endpoint', organization: true },
    ...signedIn(async () => (await import('./pages/WebhookEndpoint.js')).WebhookEndpoint),
  },
  {
    path: '/developers/events',
    handle: { title: 'Events', organization: true },
    ...signedIn(async () => (await import('./pages/Events.js')).Events),
  },
  {
    path: '/members',
    handle: { title: 'Members', organization: true },
    ...signedIn(async () => (await import('./pages/Members.js')).Members),
  },
  {
    path: '/settings',
    handle: { title: 'Settings', organization: true },
    ...signedIn(async () => (await import('./pages/Settings.js')).Settings),
  },
  {
    path: '/publishing',
    handle: { title: 'Publishing', organization: true },
    ...signedIn(async () => (await import('./pages/Publishing.js')).Publishing),
  },
  {
    path: '/mcp-catalog',
    handle: { title: 'MCP catalog', organization: true },
    ...signedIn(async () => (await import('./pages/McpCatalog.js')).McpCatalog),
  },
  {
    path: '/mcp-catalog/servers/*',
    handle: { title: 'MCP server', organization: true },
    ...signedIn(async () => (await import('./pages/McpServer.js')).McpServer),
  },
  {
    path: '/cli-login',
    handle: { title: 'Approve a CLI sign-in' },
    ...signedIn(async () => (await import('./pages/CliLogin.js')).CliLogin),
  },
  // The invitation link is public: the invitee may have no account yet.
  {
    path: '/invitations/:token',
    handle: { title: 'Invitation' },
    lazy: async () => ({ Component: (await import('./pages/Invitation.js')).Invitation }),
  },
] as const;
true satisfies [(typeof PAGES)[number]['path']] extends [ConsolePath]
  ? [ConsolePath] extends [(typeof PAGES)[number]['path']]
    ? true
    : false
  : false;

// Console paths; the server answers each with this app (and every other path with its own 404).
const router: { element: ReactNode; children: ConsoleRoute[] }[] = [
  {
    element: <Layout />,
    children: [...PAGES, { path: '*', handle: { title: 'Page not found' }, element: <NotFound /> }],
  },
];

const routes = router.flatMap((layout) => layout.children);
// Each page's element once (a lazy page's code is loaded once, not on every render).
const pages = routes.map((route) => ({
  path: route.path,
  element: route.lazy ? loadedWhenOpened(route.lazy, route.signedIn) : route.element,
}));

const root = document.getElementById('root');
if (root) {
  createRoot(root).render(
    <StrictMode>
      <QueryClientProvider client={queryClient}>
        <BrowserRouter>
          <KeepNavigate />
          <PageHandles.Provider value={routes}>
            <Routes>
              {router.map((layout) => (
                <Route key="layout" element={layout.element}>
                  {pages.map((page) => (
                    <Route key={page.path} path={page.path} element={page.element} />
                  ))}
                </Route>
              ))}
            </Routes>
          </PageHandles.Provider>
        </BrowserRouter>
      </QueryClientProvider>
    </StrictMode>,
  );
}
