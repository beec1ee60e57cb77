/**
 * The signed-in person, from `GET /api/session`: null when signed out. Held in
 * the query cache under one key, so signing in, switching account and the API
 * answering 401 mid-page all change it in one place and every view follows.
 */
import { useQuery, type QueryClient } from '@tanstack/react-query';
import { api, call, type paths } from './api/client.ts';
import { ApiError } from './api/errors.ts';

export type Session = paths['/api/session']['get']['responses']['200']['content']['application/json']['data'];
export type Role = Session['member']['role'];

export const SESSION_KEY = ['session'] as const;

async function readSession(): Promise<Session | null> {
  try {
    return (await call(api.GET('/api/session'))).data;
  } catch (error) {
    if (error instanceof ApiError && error.status === 401) return null;
    throw error;
  }
}

export function useSession() {
  return useQuery({ queryKey: SESSION_KEY, queryFn: readSession, staleTime: Number.POSITIVE_INFINITY, retry: 1 });
}

/** The person's role in the account they are looking at: what the navigation offers. */
export function roleOf(session: Session): Role {
  return session.member.role;
}

/** After sign-in or an account switch: the new session, and nothing cached from the one before. */
export function startSession(queryClient: QueryClient, session: Session): void {
  queryClient.removeQueries({ predicate: (query) => query.queryKey[0] !== SESSION_KEY[0] });
  queryClient.setQueryData(SESSION_KEY, session);
}

/** Signed out, or the session ended on the server: drop every account's data held in memory. */
export function endSession(queryClient: QueryClient): void {
  queryClient.removeQueries({ predicate: (query) => query.queryKey[0] !== SESSION_KEY[0] });
  queryClient.setQueryData(SESSION_KEY, null);
}
