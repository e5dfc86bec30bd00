import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { queryKeys } from '../api/query-keys';
import type { DeliveryFilters } from '../api/types';
import { useApi } from './use-session';

/** A page of a subscription's delivery history, newest first. */
export function useDeliveryList(id: number, filters: DeliveryFilters, page: number) {
  const api = useApi();
  return useQuery({
    queryKey: queryKeys.deliveryList(id, filters, page),
    queryFn: () => api.deliveries(id, filters, page),
    placeholderData: keepPreviousData,
  });
}

/** One record, with the payload that was sent. */
export function useDelivery(id: number, deliveryId: number) {
  const api = useApi();
  return useQuery({
    queryKey: queryKeys.delivery(id, deliveryId),
    queryFn: () => api.delivery(id, deliveryId),
  });
}
