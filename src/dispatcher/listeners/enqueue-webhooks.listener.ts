import { Injectable } from '@nestjs/common';
import { OnEvent } from '@nestjs/event-emitter';
import { WebhookEvent } from '../../common/reference/enums';
import { LicenceCreatedFailedEvent } from '../events/licence-created-failed.event';
import { LicenceCreatedSuccessEvent } from '../events/licence-created-success.event';
import type { PublishReceipt } from '../events/licence-events';
import type { LicenceEventContext } from '../licence-event.publisher';
import { WebhookOutbox } from '../webhook-outbox.service';
import { WebhookWorker } from '../webhook-worker.service';

/**
 * Fan-out: turns a licence event into one committed job per matching subscription. Delivery is a
 * separate step (WebhookWorker). `suppressErrors: false`, so a failed enqueue rejects the
 * publisher's emitAsync instead of being logged and swallowed.
 */
@Injectable()
export class EnqueueWebhooksListener {
  constructor(
    private readonly outbox: WebhookOutbox,
    private readonly worker: WebhookWorker,
  ) {}

  @OnEvent(WebhookEvent.LICENCE_CREATED_SUCCESS, { suppressErrors: false })
  onLicenceCreatedSuccess(
    event: LicenceCreatedSuccessEvent,
    context?: LicenceEventContext,
  ): Promise<PublishReceipt> {
    return this.enqueue(event, context);
  }

  @OnEvent(WebhookEvent.LICENCE_CREATED_FAILED, { suppressErrors: false })
  onLicenceCreatedFailed(
    event: LicenceCreatedFailedEvent,
    context?: LicenceEventContext,
  ): Promise<PublishReceipt> {
    return this.enqueue(event, context);
  }

  private async enqueue(
    event: LicenceCreatedSuccessEvent | LicenceCreatedFailedEvent,
    context?: LicenceEventContext,
  ): Promise<PublishReceipt> {
    const receipt = await this.outbox.enqueue(event, context?.transaction);
    // Committed already (no caller transaction): start here rather than wait for our own NOTIFY.
    if (!context?.transaction && receipt.matchedSubscriptions > 0) this.worker.wake();
    return receipt;
  }
}
