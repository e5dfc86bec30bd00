import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { SubscriptionsModule } from '../subscriptions/subscriptions.module';
import { DeliveriesController } from './deliveries.controller';
import { DeliveryHistory } from './delivery-history.repository';
import { DeliveryRecords } from './delivery-records.repository';
import { WebhookDelivery } from './webhook-delivery.entity';

/**
 * The delivery history (table `webhook_deliveries`): read by its controller and by the partner
 * tools (DeliveryHistory), written by the dispatcher's completion statement, trimmed by
 * retention (DeliveryRecords.deleteExpiredBatch). A leaf: it never calls the dispatcher.
 */
@Module({
  imports: [TypeOrmModule.forFeature([WebhookDelivery]), SubscriptionsModule],
  controllers: [DeliveriesController],
  providers: [DeliveryHistory, DeliveryRecords],
  exports: [DeliveryHistory, DeliveryRecords],
})
export class DeliveriesModule {}
