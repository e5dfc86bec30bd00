import { SortedPageQueryDto } from '../../common/paging/page-query.dto';

/**
 * API sort fields → columns; the only text that reaches ORDER BY (contract section 4): the fields
 * of the spec's delivery record that order one subscription's history. subscriptionId and
 * subscriptionName are the same on every record of it, and errorMessage is free text.
 */
export const DELIVERY_SORT_FIELDS = {
  id: 'id',
  sentAt: 'sent_at',
  createdAt: 'created_at',
  status: 'status',
  httpStatusCode: 'http_status_code',
  eventType: 'event_type',
} as const;

/** GET /webhooks/subscriptions/{id}/deliveries?page&size&sort (spec, Limits: sort on all lists). */
export class ListDeliveriesQueryDto extends SortedPageQueryDto {}
