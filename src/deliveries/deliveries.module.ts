import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { SubscriptionsModule } from '../subscriptions/subscriptions.module';
import { DeliveriesController } from './deliveries.controller';
import { DeliveriesService } from './deliveries.service';
import { DeliveryRecords } from './delivery-records.repository';
import { WebhookDelivery } from './webhook-delivery.entity';

/**
 * The delivery history (table `webhook_deliveries`): read by its controller and by the partner
 * tools (DeliveriesService), written by the dispatcher's completion statement, trimmed by
 * retention (DeliveryRecords.deleteExpiredBatch). A leaf: it never calls the dispatcher.
 */
@Module({
  imports: [TypeOrmModule.forFeature([WebhookDelivery]), SubscriptionsModule],
  controllers: [DeliveriesController],
  providers: [DeliveriesService, DeliveryRecords],
  exports: [DeliveriesService, DeliveryRecords],
})
export class DeliveriesModule {}
