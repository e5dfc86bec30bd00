import { Injectable, NotFoundException } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { Repository } from 'typeorm';
import type { AuthenticatedUser } from '../auth/authenticated-user';
import { Subscription } from '../subscriptions/subscription.entity';
import { WebhookDelivery } from './webhook-delivery.entity';

/** The 404 for a subscription that does not exist or is not visible; no id (also IdParamPipe's). */
export const SUBSCRIPTION_NOT_FOUND = 'Subscription not found';

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

  /** Newest first (sentAt desc, id desc): IDX_webhook_deliveries_subscription_sent_at. */
  list(subscriptionId: number, page: number, size: number): Promise<[WebhookDelivery[], number]> {
    return this.deliveries.findAndCount({
      where: { subscriptionId },
      order: { sentAt: 'DESC', id: 'DESC' },
      skip: page * size,
      take: size,
    });
  }

  async get(subscriptionId: number, id: string): Promise<WebhookDelivery> {
    const delivery = await this.deliveries.findOne({ where: { subscriptionId, id } });
    if (!delivery) throw new NotFoundException('Delivery not found');
    return delivery;
  }
}
