import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { WebhookOutboxModule } from '../dispatcher/webhook-outbox.module';
import { SubscriptionsModule } from '../subscriptions/subscriptions.module';
import { DeliveriesController } from './deliveries.controller';
import { DeliveriesService } from './deliveries.service';
import { DeliveryRecords } from './delivery-records.repository';
import { PartnerToolBudgets } from './partner-tool-budgets';
import { PartnerToolsController } from './partner-tools.controller';
import { WebhookDelivery } from './webhook-delivery.entity';

/**
 * The delivery history: read by its controller, written through DeliveryRecords (used by the
 * dispatcher). Resend, recover and test events (PartnerToolsController) go through the
 * dispatcher's outbox.
 */
@Module({
  imports: [TypeOrmModule.forFeature([WebhookDelivery]), SubscriptionsModule, WebhookOutboxModule],
  controllers: [DeliveriesController, PartnerToolsController],
  providers: [DeliveriesService, DeliveryRecords, PartnerToolBudgets],
  exports: [DeliveryRecords],
})
export class DeliveriesModule {}
