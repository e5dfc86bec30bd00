import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useEffect } from 'react';
import { queryKeys } from '../api/query-keys';
import type { Delivery, Page } from '../api/types';
import { knownAttempts, POLL_ATTEMPTS, POLL_INTERVAL_MS } from './use-attempt-watch';
import { useApi } from './use-session';

/** A recovery asked for: how many events it queued, and the recovery records there before. */
interface Recovered {
  events: number;
  known: Set<number>;
}

/** How many of the recovery's events have a record yet (records are written as attempts end). */
const eventsRecorded = (page: Page<Delivery> | undefined, recovered: Recovered | undefined) =>
  new Set(page?.content.filter((d) => !recovered?.known.has(d.id)).map((d) => d.eventId)).size;

/**
 * Recover (contract section 9): queues again every failed delivery since a time, then reads the
 * recovery records every POLL_INTERVAL_MS until each queued event has one (at most POLL_ATTEMPTS
 * times), so the deliveries listed and the health follow the records as they arrive.
 */
export function useRecovery(id: number) {
  const api = useApi();
  const queryClient = useQueryClient();
  const recovery = useMutation({
    mutationFn: async (since: string): Promise<Recovered> => {
      const known = await knownAttempts(api, id, 'RECOVER');
      return { events: (await api.recover(id, since)).events, known };
    },
  });
  const recovered = recovery.data;
  const poll = useQuery({
    queryKey: queryKeys.recovery(id, recovery.submittedAt),
    queryFn: () => api.deliveries(id, { trigger: 'RECOVER' }, 0, 100),
    enabled: recovered !== undefined && recovered.events > 0,
    refetchInterval: (query) =>
      eventsRecorded(query.state.data, recovered) >= (recovered?.events ?? 0) ||
      query.state.dataUpdateCount >= POLL_ATTEMPTS
        ? false
        : POLL_INTERVAL_MS,
  });
  const recorded = eventsRecorded(poll.data, recovered);

  // Each new record changes the history and may change the subscription's health: both are read again.
  useEffect(() => {
    if (recorded === 0) return;
    void queryClient.invalidateQueries({ queryKey: queryKeys.deliveries(id) });
    void queryClient.invalidateQueries({ queryKey: queryKeys.subscription(id) });
  }, [queryClient, id, recorded]);

  const events = recovered?.events;
  let status: string | undefined;
  if (events === 1) status = '1 failed delivery is being sent again.';
  else if (events !== undefined) status = `${events} failed deliveries are being sent again.`;
  return { recover: recovery.mutate, reset: recovery.reset, status, error: recovery.error };
}
