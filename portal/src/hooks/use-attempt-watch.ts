import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useEffect } from 'react';
import type { ApiClient } from '../api/client';
import { queryKeys } from '../api/query-keys';
import type { Delivery, Page, Trigger } from '../api/types';
import { outcomeText } from '../utils/format';
import { useApi } from './use-session';

/** How often and how long the portal looks for a new attempt's record. */
export const POLL_INTERVAL_MS = 1000;
export const POLL_ATTEMPTS = 90;

/** An action sent: the event it queued, and the records of its trigger that existed before. */
interface Sent {
  eventId: number;
  known: Set<number>;
}

/** The ids of the newest records of `trigger` (up to 100): those there before an action. */
export async function knownAttempts(api: ApiClient, id: number, trigger: Trigger): Promise<Set<number>> {
  const page = await api.deliveries(id, { trigger }, 0, 100);
  return new Set(page.content.map((d) => d.id));
}

/**
 * The record of the attempt an action queued: the first of its event not there before. Records are
 * written when an attempt ends, so it carries the outcome.
 */
export const findAttempt = (page: Page<Delivery> | undefined, sent: Sent | undefined) =>
  sent && page?.content.find((d) => d.eventId === sent.eventId && !sent.known.has(d.id));

/**
 * Sends an action (test event, resend), then polls the history until its attempt's record exists
 * (every POLL_INTERVAL_MS, at most POLL_ATTEMPTS times) and says how it went.
 */
export function useAttemptWatch(id: number, trigger: Trigger, sentText: string) {
  const api = useApi();
  const queryClient = useQueryClient();
  const send = useMutation({
    mutationFn: async (action: () => Promise<{ eventId: number }>): Promise<Sent> => {
      const known = await knownAttempts(api, id, trigger);
      return { eventId: (await action()).eventId, known };
    },
  });
  const sent = send.data;
  const pollKey = queryKeys.attempt(id, trigger, sent?.eventId ?? 0);
  const poll = useQuery({
    queryKey: pollKey,
    queryFn: () => api.deliveries(id, { trigger }, 0, 20),
    enabled: sent !== undefined,
    refetchInterval: (query) =>
      findAttempt(query.state.data, sent) || query.state.dataUpdateCount >= POLL_ATTEMPTS
        ? false
        : POLL_INTERVAL_MS,
  });
  const record = findAttempt(poll.data, sent);
  const recordId = record?.id;
  const polls = queryClient.getQueryState(pollKey)?.dataUpdateCount ?? 0;

  // The new record changes the history and the subscription's health: both are read again.
  useEffect(() => {
    if (recordId === undefined) return;
    void queryClient.invalidateQueries({ queryKey: queryKeys.deliveries(id) });
    void queryClient.invalidateQueries({ queryKey: queryKeys.subscription(id) });
  }, [queryClient, id, recordId]);

  let status: string | undefined;
  if (record) status = `Delivered: ${outcomeText(record)}.`;
  else if (sent && polls >= POLL_ATTEMPTS)
    status = 'Not recorded yet: the delivery is still pending. Look at the deliveries below later.';
  else if (sent && !poll.isError) status = `${sentText} Waiting for its delivery…`;

  return {
    start: (action: () => Promise<{ eventId: number }>) => send.mutate(action),
    status,
    recordId,
    error: send.error ?? poll.error,
  };
}
