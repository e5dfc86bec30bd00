import { Module } from '@nestjs/common';
import { SecretBox } from '../common/crypto/secret-box';
import { DeliveriesModule } from '../deliveries/deliveries.module';
import { ClaimConnection } from './claim-connection';
import { CompletionWriter } from './completion-writer';
import { LicenceEventPublisher } from './licence-event.publisher';
import { LicenceEventsController } from './licence-events.controller';
import { NotificationListener } from './notification-listener';
import { EnqueueWebhooksListener } from './listeners/enqueue-webhooks.listener';
import { WebhookJobsRepository } from './webhook-jobs.repository';
import { WebhookOutboxModule } from './webhook-outbox.module';
import { DELIVERY_THREAD_SCRIPT, defaultDeliveryThreadScript } from './delivery-thread.script';
import { WebhookSender } from './webhook-sender.service';
import { defaultWebhookTlsOptions, WEBHOOK_TLS_OPTIONS } from './webhook-tls';
import { WebhookWorker } from './webhook-worker.service';

/**
 * Licence events in (LicenceEventPublisher, WebhookOutbox, POST /admin/licence-events), webhook
 * deliveries out (WebhookWorker over WebhookJobsRepository, AdmissionPolicy, NotificationListener,
 * CompletionWriter and WebhookSender). Owns webhook_events and webhook_jobs; the delivery history is
 * written through the Deliveries module's DeliveryRecords. Relies on the global EventEmitterModule.
 */
@Module({
  imports: [DeliveriesModule, WebhookOutboxModule],
  controllers: [LicenceEventsController],
  providers: [
    SecretBox,
    { provide: WEBHOOK_TLS_OPTIONS, useValue: defaultWebhookTlsOptions },
    { provide: DELIVERY_THREAD_SCRIPT, useValue: defaultDeliveryThreadScript },
    LicenceEventPublisher,
    EnqueueWebhooksListener,
    WebhookSender,
    ClaimConnection,
    WebhookJobsRepository,
    CompletionWriter,
    NotificationListener,
    WebhookWorker,
  ],
  exports: [LicenceEventPublisher, WebhookOutboxModule],
})
export class DispatcherModule {}
