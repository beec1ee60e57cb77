/**
 * The application: the query cache (the one place server data lives) and
 * the gate between sign-in and the pages.
 * Signed out, whatever the address, the sign-in form shows in place; once
 * signed in, the same address shows its page, so a session that ends mid-page
 * comes back to that page.
 */
import { MutationCache, QueryCache, QueryClient, QueryClientProvider, useQueryClient } from '@tanstack/react-query';
import { lazy, Suspense, useEffect } from 'react';
import { whenSessionEnds } from './api/client.ts';
import { ApiError } from './api/errors.ts';
import { PageBoundary, Splash } from './ui/boundary.tsx';
import { endSession, useSession } from './session.ts';
import { Shell } from './shell.tsx';
import { QueryView } from './ui/page.tsx';

const SignIn = lazy(() => import('./pages/sign-in/page.tsx'));

function retry(failures: number, error: unknown): boolean {
  // A refusal (4xx) will be refused again; only a dropped connection or a 5xx is worth another try.
  return failures < 2 && error instanceof ApiError && (error.status === 0 || error.status >= 500);
}

const queryClient = new QueryClient({
  queryCache: new QueryCache(),
  mutationCache: new MutationCache(),
  defaultOptions: { queries: { retry, staleTime: 15_000, refetchOnWindowFocus: true }, mutations: { retry: false } },
});

function SessionGate() {
  const client = useQueryClient();
  const session = useSession();
  useEffect(() => whenSessionEnds(() => endSession(client)), [client]);
  return (
    <QueryView query={session} label="Your session">
      {(current) =>
        current ? (
          <Shell session={current} />
        ) : (
          <Suspense fallback={<Splash />}>
            <SignIn />
          </Suspense>
        )
      }
    </QueryView>
  );
}

export function App() {
  return (
    <QueryClientProvider client={queryClient}>
      <PageBoundary resetKey="app">
        <SessionGate />
      </PageBoundary>
    </QueryClientProvider>
  );
}
