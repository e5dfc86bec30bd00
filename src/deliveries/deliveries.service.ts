import { Injectable, NotFoundException } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { Conditions } from '../common/paging/conditions';
import { NamedStatements } from '../common/paging/named-statements';
import { readPage } from '../common/paging/read-page';
import { parseSort, SortOrder, totalOrder } from '../common/paging/sort';
import { preparedQuery } from '../database/prepared-query';
import { DELIVERY_SORT_FIELDS } from './dto/list-deliveries.query';
import type { WebhookDelivery } from './webhook-delivery.entity';

/** A delivery record as the history reads it. */
export type DeliveryRecord = Omit<WebhookDelivery, 'eventId' | 'event' | 'subscription'>;

/** The record's columns, named as the entity names them. */
const COLUMNS = `id, subscription_id AS "subscriptionId", event_type AS "eventType", status,
  http_status_code AS "httpStatusCode", error_message AS "errorMessage", sent_at AS "sentAt",
  created_at AS "createdAt"`;

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
export class DeliveriesService {
  // Hand-written SQL as named prepared statements, as the subscription list: a history page is one
  // round trip, the count inside it, on a table far larger than the subscriptions'.
  private readonly statements = new NamedStatements('deliveries', (name, text, values) =>
    preparedQuery(this.dataSource, name, text, values),
  );

  constructor(private readonly dataSource: DataSource) {}

  /** One page of a subscription's history, in `sort`'s order (orderOf). */
  async list(
    subscriptionId: number,
    sort: string[] | undefined,
    page: bigint,
    size: number,
  ): Promise<[DeliveryRecord[], number]> {
    const where = new Conditions().add((p) => `subscription_id = ${p}`, subscriptionId);
    const unfiltered = where.params.length === 1;
    const count = unfiltered ? STORED_COUNT_SQL : undefined;
    const select = { columns: COLUMNS, from: 'webhook_deliveries', where, orderBy: orderOf(sort), count };
    return readPage<DeliveryRecord>(this.statements, select, page, size);
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
