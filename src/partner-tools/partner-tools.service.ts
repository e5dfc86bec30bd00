import { ConflictException, Injectable, NotFoundException } from '@nestjs/common';
import { ConfigService } from '@nestjs/config';
import type { AuthenticatedUser } from '../common/auth/authenticated-user';
import { ValidationFailedException } from '../common/errors/validation-failed.exception';
import { DeliveryTrigger, WebhookEvent } from '../common/reference/enums';
import { parseInstant } from '../common/validation/instant';
import type { AppConfig } from '../config/configuration';
import { DeliveryHistory } from '../deliveries/delivery-history.repository';
import { type EnqueueAgainOutcome, WebhookOutbox } from '../dispatcher';
import { subscriptionNotFound } from '../subscriptions/subscription-visibility';
import { SubscriptionsService } from '../subscriptions/subscriptions.service';
import {
  MAX_RECOVERED_EVENTS,
  RecoverDeliveriesDto,
  RecoverDeliveriesReceipt,
} from './dto/recover-deliveries.dto';
import { ResendReceipt } from './dto/resend.response';
import { TestEventReceipt } from './dto/test-event.dto';
import { PartnerToolBudgets } from './partner-tool-budgets';

const DAY_MS = 24 * 60 * 60 * 1000;

/** Resend and recover go to active subscriptions only (contract section 9). */
function requireActive(subscription: { id: number; active: boolean }): void {
  if (!subscription.active) {
    throw new ConflictException(`Subscription ${subscription.id} is not active: activate it first`);
  }
}

/**
 * Nothing queued although there were events to queue: the subscription was deleted, moved to another
 * tenant (404) or deactivated (409) since it was read, as the enqueue statement saw it. Otherwise an
 * attempt is pending for each event, and the answer stays 202.
 */
function refuseWhenNothingQueued(subscriptionId: number, outcome: EnqueueAgainOutcome): void {
  if (outcome.enqueued > 0) return;
  if (outcome.active === null) throw new NotFoundException(subscriptionNotFound());
  requireActive({ id: subscriptionId, active: outcome.active });
}

/**
 * The partner tools of contract section 9 that send something: resend one record's event, recover
 * the failed ones since a time, and the test event. Each checks the subscription once (visible to
 * the caller, active where it must be), spends the tool's budget (PartnerToolBudgets) and enqueues
 * once through the dispatcher's outbox: a promise that resolves means the jobs are committed.
 */
@Injectable()
export class PartnerToolsService {
  private readonly retentionDays: number;

  constructor(
    private readonly subscriptions: SubscriptionsService,
    private readonly deliveries: DeliveryHistory,
    private readonly outbox: WebhookOutbox,
    private readonly budgets: PartnerToolBudgets,
    config: ConfigService<AppConfig, true>,
  ) {
    this.retentionDays = config.getOrThrow('retention', { infer: true }).days;
  }

  async resend(user: AuthenticatedUser, id: number, deliveryId: string): Promise<ResendReceipt> {
    const subscription = await this.subscriptions.findVisible(user, id, subscriptionNotFound());
    const record = await this.deliveries.get(id, deliveryId);
    requireActive(subscription);
    await this.budgets.spend('resend', subscription);
    const outcome = await this.outbox.enqueueAgain(subscription, [record.eventId], DeliveryTrigger.RESEND);
    refuseWhenNothingQueued(id, outcome);
    // Retention took the record, and then its event, since it was read here.
    if (outcome.events === 0) throw new NotFoundException('Delivery not found');
    return { eventId: Number(record.eventId), subscriptionId: id };
  }

  async recover(
    user: AuthenticatedUser,
    id: number,
    body: RecoverDeliveriesDto,
  ): Promise<RecoverDeliveriesReceipt> {
    const subscription = await this.subscriptions.findVisible(user, id, subscriptionNotFound());
    const { since, until } = this.recoveryWindow(body);
    requireActive(subscription);
    await this.budgets.spend('recover', subscription);
    const eventIds = await this.deliveries.failedEvents(id, since, until, MAX_RECOVERED_EVENTS);
    if (eventIds.length === 0) return { events: 0 };
    const outcome = await this.outbox.enqueueAgain(subscription, eventIds, DeliveryTrigger.RECOVER);
    refuseWhenNothingQueued(id, outcome);
    return { events: outcome.enqueued };
  }

  async sendTestEvent(
    user: AuthenticatedUser,
    id: number,
    eventType: WebhookEvent,
  ): Promise<TestEventReceipt> {
    const subscription = await this.subscriptions.findVisible(user, id, subscriptionNotFound());
    await this.budgets.spend('test', subscription);
    const eventId = await this.outbox.enqueueTest(subscription, eventType);
    if (eventId === undefined) throw new NotFoundException(subscriptionNotFound());
    return { eventId };
  }

  /** [since, until) of a recovery: since at most RETENTION_DAYS back, until (default now) after it. */
  private recoveryWindow(body: RecoverDeliveriesDto): { since: Date; until: Date } {
    const now = Date.now();
    const since = parseInstant(body.since)!;
    const until = body.until === undefined ? new Date(now) : parseInstant(body.until)!;
    if (since.getTime() < now - this.retentionDays * DAY_MS) {
      throw new ValidationFailedException([
        { field: 'since', message: `since must be at most ${this.retentionDays} days back (RETENTION_DAYS)` },
      ]);
    }
    if (since >= until) {
      throw new ValidationFailedException([{ field: 'until', message: 'until must be after since' }]);
    }
    return { since, until };
  }
}
