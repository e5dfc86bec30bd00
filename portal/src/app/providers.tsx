import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { useState } from 'react';
import type { ReactNode } from 'react';
import { SessionProvider } from './session-provider';

/**
 * Server state in TanStack Query. No automatic retries: an API error is shown in words at once (a
 * 429 with its wait), and the person decides to try again.
 */
const newQueryClient = () =>
  new QueryClient({ defaultOptions: { queries: { retry: false }, mutations: { retry: false } } });

export function AppProviders({ children }: { children: ReactNode }) {
  const [queryClient] = useState(newQueryClient);
  return (
    <QueryClientProvider client={queryClient}>
      <SessionProvider>{children}</SessionProvider>
    </QueryClientProvider>
  );
}
