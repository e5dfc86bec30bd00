import { Injectable, NotFoundException } from '@nestjs/common';
import { Conditions } from '../common/paging/conditions';
import type { NamedStatements } from '../common/paging/named-statements';
import { readPage } from '../common/paging/read-page';
import { parseSort, SortOrder, totalOrder } from '../common/paging/sort';
import { Postgres } from '../database/postgres';
import { DeliveryStatus, DeliveryTrigger, WebhookEvent } from '../common/reference/enums';
import { DELIVERY_SORT_FIELDS } from './dto/list-deliveries.query';
import type { WebhookDelivery } from './webhook-delivery.entity';

/** A delivery record as the history reads it. */
export type DeliveryRecord = Omit<WebhookDelivery, 'event' | 'subscription'>;

/** The record's columns, named as the entity names them. */
const COLUMNS = `id, event_id AS "eventId", subscription_id AS "subscriptionId", event_type AS "eventType",
  status, http_status_code AS "httpStatusCode", error_message AS "errorMessage", trigger,
  duration_ms AS "durationMs", response_body AS "responseBody", sent_at AS "sentAt",
  created_at AS "createdAt"`;

/** The list filters of contract section 9; `since` inclusive, `until` exclusive, on sent_at. */
export interface DeliveryFilters {
  status?: DeliveryStatus;
  eventType?: WebhookEvent;
  trigger?: DeliveryTrigger;
  since?: Date;
  until?: Date;
}

/**
 * The events a recovery sends again (contract section 9): those whose latest attempt for the
 * subscription FAILED within [since, until), oldest first. Attempts before `since` cannot be an
 * event's latest one there, so only the subscription's records from `since` on are read (a range
 * of IDX_webhook_deliveries_subscription_sent_at); a later SUCCESS (or any later attempt) excludes
 * the event. Pending jobs are the dispatcher's: WebhookOutbox.enqueueAgain skips those.
 */
const FAILED_EVENTS_SQL = `
  SELECT event_id AS "eventId"
  FROM (
    SELECT DISTINCT ON (event_id) event_id, status, sent_at
    FROM webhook_deliveries
    WHERE subscription_id = $1 AND sent_at >= $2
    ORDER BY event_id, sent_at DESC, id DESC
  ) latest
  WHERE status = '${DeliveryStatus.FAILED}' AND sent_at < $3
  ORDER BY event_id
  LIMIT $4`;

/**
 * The number of records of subscription $1, kept in the transaction of every insert and delete
 * (migration WebhookDeliveryCounts): a history page counts nothing. Only for the whole history; a
 * filtered list counts its matches.
 */
const STORED_COUNT_SQL = `
  SELECT COALESCE((SELECT records FROM webhook_delivery_counts WHERE subscription_id = $1), 0) AS total`;

/**
 * Newest first by default (sent_at desc, id desc: contract section 6), which
 * IDX_webhook_deliveries_subscription_sent_at serves, backwards too. Any other sort is over one
 * subscription's history, ties broken by sent_at (newest first unless the sort names it) and then
 * id in sent_at's direction (totalOrder).
 */
const orderOf = (sort: string[] | undefined): SortOrder[] =>
  totalOrder(parseSort(sort, DELIVERY_SORT_FIELDS, []), ['sent_at', 'id'], 'DESC');

/** Read side of the delivery history of a subscription the caller has already been allowed to see. */
@Injectable()
export class DeliveryHistory {
  // Hand-written SQL as named prepared statements, as the subscription list: a history page is one
  // round trip, the count inside it, on a table far larger than the subscriptions'.
  private readonly statements: NamedStatements;

  constructor(postgres: Postgres) {
    this.statements = postgres.namedStatements('deliveries');
  }

  /**
   * One page of a subscription's history, narrowed by `filters` when given, in `sort`'s order
   * (orderOf). The whole history's count is the stored one (STORED_COUNT_SQL); a filtered list
   * counts its matches.
   */
  async list(
    subscriptionId: number,
    filters: DeliveryFilters,
    sort: string[] | undefined,
    page: bigint,
    size: number,
  ): Promise<[DeliveryRecord[], number]> {
    const where = new Conditions().add((p) => `subscription_id = ${p}`, subscriptionId);
    if (filters.status) where.add((p) => `status = ${p}`, filters.status);
    if (filters.eventType) where.add((p) => `event_type = ${p}`, filters.eventType);
    if (filters.trigger) where.add((p) => `trigger = ${p}`, filters.trigger);
    if (filters.since) where.add((p) => `sent_at >= ${p}`, filters.since);
    if (filters.until) where.add((p) => `sent_at < ${p}`, filters.until);
    const count = where.params.length === 1 ? STORED_COUNT_SQL : undefined;
    const select = { columns: COLUMNS, from: 'webhook_deliveries', where, orderBy: orderOf(sort), count };
    return readPage<DeliveryRecord>(this.statements, select, page, size);
  }

  /** The ids of the events a recovery of [since, until) sends again, at most `limit` (FAILED_EVENTS_SQL). */
  async failedEvents(subscriptionId: number, since: Date, until: Date, limit: number): Promise<string[]> {
    const rows = await this.statements.query<{ eventId: string }>(FAILED_EVENTS_SQL, [
      subscriptionId,
      since,
      until,
      limit,
    ]);
    return rows.map((row) => row.eventId);
  }

  /**
   * One record with the exact JSON text of its event's body (webhook_events.payload is `json`: kept
   * byte for byte); `payload` null when retention took the event since the record was written.
   */
  async getWithPayload(
    subscriptionId: number,
    id: string,
  ): Promise<DeliveryRecord & { payload: string | null }> {
    const [delivery] = await this.statements.query<DeliveryRecord & { payload: string | null }>(
      `SELECT ${COLUMNS}, (SELECT e.payload::text FROM webhook_events e WHERE e.id = d.event_id) AS payload
       FROM webhook_deliveries d WHERE subscription_id = $1 AND id = $2`,
      [subscriptionId, id],
    );
    if (!delivery) throw new NotFoundException('Delivery not found');
    return delivery;
  }

  async get(subscriptionId: number, id: string): Promise<DeliveryRecord> {
    const [delivery] = await this.statements.query<DeliveryRecord>(
      `SELECT ${COLUMNS} FROM webhook_deliveries WHERE subscription_id = $1 AND id = $2`,
      [subscriptionId, id],
    );
    if (!delivery) throw new NotFoundException('Delivery not found');
    return delivery;
  }
}
