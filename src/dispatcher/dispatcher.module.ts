import { Module } from '@nestjs/common';
import { SecretBox } from '../common/crypto/secret-box';
import { ClaimConnection } from './claim-connection';
import { CompletionWriter } from './completion-writer';
import { LicenceEventPublisher } from './licence-event.publisher';
import { LicenceEventsController } from './licence-events.controller';
import { NotificationListener } from './notification-listener';
import { PendingJobsGauges } from './pending-jobs.gauges';
import { EnqueueWebhooksListener } from './listeners/enqueue-webhooks.listener';
import { WebhookEventsRepository } from './webhook-events.repository';
import { WebhookJobsRepository } from './webhook-jobs.repository';
import { WebhookOutbox } from './webhook-outbox.service';
import { DELIVERY_THREAD_SCRIPT, defaultDeliveryThreadScript } from './delivery-thread.script';
import { WebhookSender } from './webhook-sender.service';
import { defaultWebhookTlsOptions, WEBHOOK_TLS_OPTIONS } from './webhook-tls';
import { WebhookWorker } from './webhook-worker.service';

/**
 * Licence events in (LicenceEventPublisher, WebhookOutbox, POST /admin/licence-events), webhook
 * deliveries out (WebhookWorker over WebhookJobsRepository, AdmissionPolicy, NotificationListener,
 * CompletionWriter and WebhookSender). Owns webhook_events and webhook_jobs, and the transaction that
 * finishes a delivery: its completion statement (completion.statement.ts) writes the Deliveries
 * module's history and the subscriptions' health with the outbox's delete. Other modules use what it exports (the
 * publisher and the outbox, also named in ./index.ts). Relies on the global EventEmitterModule.
 */
@Module({
  controllers: [LicenceEventsController],
  providers: [
    SecretBox,
    { provide: WEBHOOK_TLS_OPTIONS, useValue: defaultWebhookTlsOptions },
    { provide: DELIVERY_THREAD_SCRIPT, useValue: defaultDeliveryThreadScript },
    WebhookEventsRepository,
    WebhookOutbox,
    LicenceEventPublisher,
    EnqueueWebhooksListener,
    WebhookSender,
    ClaimConnection,
    WebhookJobsRepository,
    CompletionWriter,
    NotificationListener,
    WebhookWorker,
    PendingJobsGauges,
  ],
  exports: [LicenceEventPublisher, WebhookOutbox],
})
export class DispatcherModule {}
