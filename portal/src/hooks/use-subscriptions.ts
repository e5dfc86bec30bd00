import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { queryKeys } from '../api/query-keys';
import type { SubscriptionListParams } from '../api/types';
import { useApi } from './use-session';

/** A page of subscriptions; the previous page stays on screen while the next one loads. */
export function useSubscriptionList(params: SubscriptionListParams) {
  const api = useApi();
  return useQuery({
    queryKey: queryKeys.subscriptionList(params),
    queryFn: () => api.subscriptions(params),
    placeholderData: keepPreviousData,
  });
}

/** One subscription; `id` undefined: none (a new one). */
export function useSubscription(id: number | undefined) {
  const api = useApi();
  return useQuery({
    queryKey: queryKeys.subscription(id ?? 0),
    queryFn: () => api.subscription(id!),
    enabled: id !== undefined,
  });
}
