import { SortedPageQueryDto } from '../../common/paging/page-query.dto';

/**
 * API sort fields → WebhookDelivery properties (TypeORM turns them into columns): the fields of the
 * spec's delivery record that order one subscription's history. subscriptionId and subscriptionName
 * are the same on every record of it, and errorMessage is free text.
 */
export const DELIVERY_SORT_FIELDS = {
  id: 'id',
  sentAt: 'sentAt',
  createdAt: 'createdAt',
  status: 'status',
  httpStatusCode: 'httpStatusCode',
  eventType: 'eventType',
} as const;

/** GET /webhooks/subscriptions/{id}/deliveries?page&size&sort (spec, Limits: sort on all lists). */
export class ListDeliveriesQueryDto extends SortedPageQueryDto {}
