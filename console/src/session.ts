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
    mutationFn: async (credentials: { email: string; password: string }) => {
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
 * Where sign-in returns to: only a path of this console (one leading slash), never another origin (`//x`,
 * `/\x` and `https:` are refused), so `?next=` cannot become an open redirect.
 */
export function safeNext(next: string | null): string {
  if (!next?.startsWith('/') || next.startsWith('//') || next.startsWith('/\\')) return '/';
  return next;
}
