import { MutationCache, QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { type ComponentType, StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { createBrowserRouter, Navigate, RouterProvider } from 'react-router';
import type { ConsolePath } from '../../src/modules/console/console-pages.js';
import { ApiProblem, setCsrfToken } from './api/client.js';
import { Layout } from './components/Layout.js';
import { RequireSession } from './components/RequireSession.js';
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
      void router.navigate(`/sign-in?expired=1&next=${encodeURIComponent(here)}`);
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
 * A page of the organization, loaded when first opened: the first page (the registry) carries only what it
 * needs, under its 120 KB gzipped budget (test/console/bundle-budget.test.ts). Signed out, the person signs
 * in first (RequireSession).
 */
const signedIn = (load: () => Promise<ComponentType>) => ({
  lazy: async () => {
    const Page = await load();
    return {
      element: (
        <RequireSession>
          <Page />
        </RequireSession>
      ),
    };
  },
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

const router = createBrowserRouter([
  {
    element: <Layout />,
    children: [...PAGES, { path: '*', handle: { title: 'Page not found' }, element: <NotFound /> }],
  },
]);

const root = document.getElementById('root');
if (root) {
  createRoot(root).render(
    <StrictMode>
      <QueryClientProvider client={queryClient}>
        <RouterProvider router={router} />
      </QueryClientProvider>
    </StrictMode>,
  );
}
