import { Module } from '@nestjs/common';
import { WebhookOutbox } from './webhook-outbox.service';

/**
 * The outbox on its own (webhook_events and webhook_jobs belong to the dispatcher): imported by the
 * Dispatcher, which re-exports it to the licence services, and by Deliveries for resend, recover
 * and test events. Separate because the Dispatcher imports Deliveries (DeliveryRecords).
 */
@Module({ providers: [WebhookOutbox], exports: [WebhookOutbox] })
export class WebhookOutboxModule {}
