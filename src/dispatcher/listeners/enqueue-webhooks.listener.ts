import { Injectable, Logger } from '@nestjs/common';
import { OnEvent } from '@nestjs/event-emitter';
import { WebhookEvent } from '../../common/reference/enums';
import { LicenceCreatedFailedEvent } from '../../licence-events/licence-created-failed.event';
import { LicenceCreatedSuccessEvent } from '../../licence-events/licence-created-success.event';
import type { PublishReceipt } from '../../licence-events/licence-events';
import type { LicenceEventContext } from '../licence-event.publisher';
import type { ClaimedJob } from '../webhook-jobs.repository';
import { WebhookOutbox } from '../webhook-outbox.service';
import { WebhookWorker } from '../webhook-worker.service';

/**
 * Fan-out: turns a licence event into one committed job per matching subscription. Delivery is a
 * separate step (WebhookWorker). The receipt, or the error, goes to the publisher's PublishOutcome,
 * which its caller awaits. An event emitted some other way (`EventEmitter2.emit`, which does not
 * wait: nothing is durable when it returns) has nobody to take a failure: it is logged, rather than
 * left as an unhandled rejection that would stop the process.
 */
@Injectable()
export class EnqueueWebhooksListener {
  private readonly logger = new Logger('EnqueueWebhooksListener');

  constructor(
    private readonly outbox: WebhookOutbox,
    private readonly worker: WebhookWorker,
  ) {}

  @OnEvent(WebhookEvent.LICENCE_CREATED_SUCCESS, { suppressErrors: false })
  onLicenceCreatedSuccess(event: LicenceCreatedSuccessEvent, context?: LicenceEventContext): Promise<void> {
    return this.enqueue(event, context);
  }

  @OnEvent(WebhookEvent.LICENCE_CREATED_FAILED, { suppressErrors: false })
  onLicenceCreatedFailed(event: LicenceCreatedFailedEvent, context?: LicenceEventContext): Promise<void> {
    return this.enqueue(event, context);
  }

  private async enqueue(
    event: LicenceCreatedSuccessEvent | LicenceCreatedFailedEvent,
    { transaction, idempotencyKey, outcome }: LicenceEventContext = {},
  ): Promise<void> {
    let receipt: PublishReceipt | undefined;
    let leased: ClaimedJob[] = [];
    // Without a caller transaction, the jobs this instance delivers at once are leased to it as they
    // are written: they start at the commit, with no claim in between (WebhookWorker.leaseForPublish).
    const lease = transaction ? undefined : this.worker.leaseForPublish(event.tenant);
    // Committed already (no caller transaction): the rest are claimed here rather than on our own NOTIFY.
    const unleased = () =>
      !transaction && receipt !== undefined && receipt.matchedSubscriptions > leased.length;
    try {
      if (lease) ({ receipt, leased } = await this.outbox.publishLeasing(event, { idempotencyKey }, lease));
      else receipt = await this.outbox.enqueue(event, transaction, { idempotencyKey });
    } catch (error) {
      if (outcome) return outcome.refused(error);
      const { eventType, tenant } = event as { eventType?: unknown; tenant?: unknown };
      this.logger.error(
        { err: error, eventType, tenant },
        'licence event not enqueued; publish through LicenceEventPublisher to get the error',
      );
      return;
    } finally {
      if (lease) this.worker.publishEnded(lease, leased, unleased());
    }
    if (!lease && unleased()) this.worker.wake();
    outcome?.enqueued(receipt);
  }
}
