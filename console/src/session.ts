import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { api, setCsrfToken, toProblem, unwrap } from './api/client.js';
import type { components } from './api/schema.js';

export type ConsoleSession = components['schemas']['ConsoleSession'];

const SESSION = ['session'] as const;

/** The signed-in person (null when signed out); its CSRF token is handed to the API client, in memory. */
export function useSession() {
  return useQuery({
    queryKey: SESSION,
    queryFn: async (): Promise<ConsoleSession | null> => {
      const result = await api.GET('/auth/session');
      if (result.response.status === 401) {
        setCsrfToken(undefined);
        return null;
      }
      const session = unwrap(result).data;
      setCsrfToken(session.csrfToken);
      return session;
    },
    staleTime: 60_000,
  });
}

export function useSignIn() {
  const client = useQueryClient();
  return useMutation({
    meta: { signIn: true },
    mutationFn: async (credentials: { email: string; password: string; organization?: string }) => {
      const result = await api.POST('/auth/login', { body: credentials });
      if (!result.response.ok) throw toProblem(result.response, result.error);
      return unwrap(result).data;
    },
    onSuccess: (session) => {
      setCsrfToken(session.csrfToken);
      client.setQueryData(SESSION, session);
    },
  });
}

export function useSignOut() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: async () => {
      await api.POST('/auth/logout');
    },
    onSettled: () => {
      setCsrfToken(undefined);
      client.setQueryData(SESSION, null);
      client.removeQueries({ predicate: (query) => query.queryKey[0] !== 'session' });
    },
  });
}

/**
 * Moves the session to another of the person's organizations (POST /auth/session/organization, with the CSRF
 * header). Every other query is reset, so each page reads again in the chosen organization.
 */
export function useSwitchOrganization() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: async (organization: string) =>
      unwrap(await api.POST('/auth/session/organization', { body: { organization } })).data,
    onSuccess: async (session) => {
      client.setQueryData(SESSION, session);
      await client.resetQueries({ predicate: (query) => query.queryKey[0] !== 'session' });
    },
  });
}

/**
 * Where sign-in returns to: only a path of this console (one leading slash), never another origin (`//x`,
 * `/\x` and `https:` are refused), so `?next=` cannot become an open redirect.
 */
export function safeNext(next: string | null): string {
  if (!next?.startsWith('/') || next.startsWith('//') || next.startsWith('/\\')) return '/';
  return next;
}

export type Me = import('./api/schema.js').components['schemas']['Me'];

/** The signed-in person's role and what their session may do (GET /api/v1/me); undefined when signed out. */
export function useMe() {
  const session = useSession();
  return useQuery({
    queryKey: ['me', session.data?.user.id],
    enabled: Boolean(session.data),
    queryFn: async (): Promise<Me> => unwrap(await api.GET('/api/v1/me')).data,
    staleTime: 60_000,
  });
}

export type Permission = Me['permissions'][number];

/**
 * What the signed-in person may do, from GET /api/v1/me: pages show a button, menu entry or form only when
 * its permission is here (the API refuses the rest anyway). False while it loads, so nothing flashes.
 */
export function useCan(): (permission: Permission) => boolean {
  const me = useMe();
  return (permission) => me.data?.permissions.includes(permission) ?? false;
}
