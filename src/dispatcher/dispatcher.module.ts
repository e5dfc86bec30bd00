import { Module } from '@nestjs/common';
import { SecretBox } from '../common/crypto/secret-box';
import { LicenceEventPublisher } from './licence-event.publisher';
import { LicenceEventsController } from './licence-events.controller';
import { EnqueueWebhooksListener } from './listeners/enqueue-webhooks.listener';
import { WebhookOutbox } from './webhook-outbox.service';
import { DELIVERY_THREAD_SCRIPT, defaultDeliveryThreadScript, WebhookSender } from './webhook-sender.service';
import { defaultWebhookTlsOptions, WEBHOOK_TLS_OPTIONS } from './webhook-tls';
import { WebhookWorker } from './webhook-worker.service';

/**
 * Licence events in (LicenceEventPublisher, WebhookOutbox, POST /admin/licence-events), webhook
 * deliveries out (WebhookWorker, WebhookSender). Relies on the global EventEmitterModule.
 */
@Module({
  controllers: [LicenceEventsController],
  providers: [
    SecretBox,
    { provide: WEBHOOK_TLS_OPTIONS, useValue: defaultWebhookTlsOptions },
    { provide: DELIVERY_THREAD_SCRIPT, useValue: defaultDeliveryThreadScript },
    LicenceEventPublisher,
    WebhookOutbox,
    EnqueueWebhooksListener,
    WebhookSender,
    WebhookWorker,
  ],
  exports: [LicenceEventPublisher, WebhookOutbox],
})
export class DispatcherModule {}
