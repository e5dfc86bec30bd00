import { Injectable, NotFoundException } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { Repository } from 'typeorm';
import type { AuthenticatedUser } from '../auth/authenticated-user';
import { pageOffset } from '../common/paging/page';
import { parseSort, SortOrder } from '../common/paging/sort';
import { Subscription } from '../subscriptions/subscription.entity';
import { DELIVERY_SORT_FIELDS } from './dto/list-deliveries.query';
import { WebhookDelivery } from './webhook-delivery.entity';

/** The 404 for a subscription that does not exist or is not visible; no id (also IdParamPipe's). */
export const SUBSCRIPTION_NOT_FOUND = 'Subscription not found';

/**
 * Newest first by default (sentAt desc, id desc: contract section 6), which
 * IDX_webhook_deliveries_subscription_sent_at serves, backwards too. Any other sort is over one
 * subscription's history, ties broken by sentAt (newest first unless the sort names it) and then id
 * in sentAt's direction, so the order is total and pages never overlap.
 */
function deliveryOrder(sort: string[] | undefined): SortOrder[] {
  const orders = parseSort(sort, DELIVERY_SORT_FIELDS, []);
  if (orders.some((o) => o.column === 'id')) return orders; // unique already
  let sentAt = orders.find((o) => o.column === 'sentAt');
  if (!sentAt) orders.push((sentAt = { column: 'sentAt', direction: 'DESC' }));
  orders.push({ column: 'id', direction: sentAt.direction });
  return orders;
}

/** Read side of the delivery history; the dispatcher writes it. */
@Injectable()
export class DeliveriesService {
  constructor(
    @InjectRepository(WebhookDelivery) private readonly deliveries: Repository<WebhookDelivery>,
    @InjectRepository(Subscription) private readonly subscriptions: Repository<Subscription>,
  ) {}

  /** The subscription, if the user may see it: 404 otherwise, so another tenant's is not revealed. */
  async visibleSubscription(user: AuthenticatedUser, id: number): Promise<Pick<Subscription, 'id' | 'name'>> {
    const subscription = await this.subscriptions.findOne({
      select: { id: true, name: true },
      where: user.isAdministrator ? { id } : { id, tenant: user.tenant },
    });
    if (!subscription) throw new NotFoundException(SUBSCRIPTION_NOT_FOUND);
    return subscription;
  }

  /** One page of a subscription's history, in `sort`'s order (deliveryOrder). */
  async list(
    subscriptionId: number,
    sort: string[] | undefined,
    page: bigint,
    size: number,
  ): Promise<[WebhookDelivery[], number]> {
    const order = Object.fromEntries(deliveryOrder(sort).map((o) => [o.column, o.direction]));
    const offset = pageOffset(page, size);
    if (offset === undefined) return [[], await this.deliveries.countBy({ subscriptionId })];
    return this.deliveries.findAndCount({ where: { subscriptionId }, order, skip: offset, take: size });
  }

  async get(subscriptionId: number, id: string): Promise<WebhookDelivery> {
    const delivery = await this.deliveries.findOne({ where: { subscriptionId, id } });
    if (!delivery) throw new NotFoundException('Delivery not found');
    return delivery;
  }
}
