import type { DeliveryFilters, SubscriptionListParams, Trigger } from './types';

/** TanStack Query keys, one place: a prefix invalidates everything below it. */
export const queryKeys = {
  tenants: ['tenants'] as const,
  subscriptionLists: ['subscriptions', 'list'] as const,
  subscriptionList: (params: SubscriptionListParams) => ['subscriptions', 'list', params] as const,
  subscription: (id: number) => ['subscriptions', 'detail', id] as const,
  secret: (id: number) => ['secret', id] as const,
  deliveries: (id: number) => ['deliveries', id] as const,
  deliveryList: (id: number, filters: DeliveryFilters, page: number) =>
    ['deliveries', id, 'list', filters, page] as const,
  delivery: (id: number, deliveryId: number) => ['deliveries', id, 'detail', deliveryId] as const,
  /** The polling for the record of one attempt (test event, resend). */
  attempt: (id: number, trigger: Trigger, eventId: number) => ['attempt', id, trigger, eventId] as const,
  /** The polling for the records of one recovery (`submittedAt`: when it was asked for). */
  recovery: (id: number, submittedAt: number) => ['recovery', id, submittedAt] as const,
};
