import { MutationCache, QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { createBrowserRouter, RouterProvider } from 'react-router';
import { ApiProblem, setCsrfToken } from './api/client.js';
import { Layout } from './components/Layout.js';
import { RequireSession } from './components/RequireSession.js';
import { ApiKeys } from './pages/ApiKeys.js';
import { AuditLog } from './pages/AuditLog.js';
import { Billing } from './pages/Billing.js';
import { Connections } from './pages/Connections.js';
import { ExpertPage } from './pages/ExpertPage.js';
import { Home } from './pages/Home.js';
import { Integrations } from './pages/Integrations.js';
import { Invitation } from './pages/Invitation.js';
import { Members } from './pages/Members.js';
import { NotFound } from './pages/NotFound.js';
import { Projects } from './pages/Projects.js';
import { RegistryList } from './pages/RegistryList.js';
import { Settings } from './pages/Settings.js';
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

// Console paths; the server answers each with this app (and every other path with its own 404).
const router = createBrowserRouter([
  {
    element: <Layout />,
    children: [
      { path: '/', element: <RegistryList /> },
      { path: '/experts/*', element: <ExpertPage /> },
      // The playground carries the cadre.toml validator (zod, TOML, JSON Schema): loaded when opened.
      {
        path: '/playground',
        lazy: async () => ({ Component: (await import('./pages/Playground.js')).Playground }),
      },
      { path: '/sign-in', element: <SignIn /> },
      {
        path: '/home',
        element: (
          <RequireSession>
            <Home />
          </RequireSession>
        ),
      },
      {
        path: '/keys',
        element: (
          <RequireSession>
            <ApiKeys />
          </RequireSession>
        ),
      },
      {
        path: '/billing',
        element: (
          <RequireSession>
            <Billing />
          </RequireSession>
        ),
      },
      {
        path: '/connections',
        element: (
          <RequireSession>
            <Connections />
          </RequireSession>
        ),
      },
      {
        path: '/projects',
        element: (
          <RequireSession>
            <Projects />
          </RequireSession>
        ),
      },
      {
        path: '/integrations',
        element: (
          <RequireSession>
            <Integrations />
          </RequireSession>
        ),
      },
      {
        path: '/audit',
        element: (
          <RequireSession>
            <AuditLog />
          </RequireSession>
        ),
      },
      {
        path: '/members',
        element: (
          <RequireSession>
            <Members />
          </RequireSession>
        ),
      },
      {
        path: '/settings',
        element: (
          <RequireSession>
            <Settings />
          </RequireSession>
        ),
      },
      // The invitation link is public: the invitee may have no account yet.
      { path: '/invitations/:token', element: <Invitation /> },
      { path: '*', element: <NotFound /> },
    ],
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
