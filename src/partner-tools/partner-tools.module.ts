import { Module } from '@nestjs/common';
import { DeliveriesModule } from '../deliveries/deliveries.module';
import { DispatcherModule } from '../dispatcher';
import { SubscriptionsModule } from '../subscriptions/subscriptions.module';
import { PartnerToolBudgets } from './partner-tool-budgets';
import { PartnerToolsController } from './partner-tools.controller';
import { PartnerToolsService } from './partner-tools.service';

/**
 * Resend, recover and test events (contract section 9): reads the history (Deliveries) and the
 * subscription (Subscriptions), enqueues through the dispatcher's outbox.
 */
@Module({
  imports: [SubscriptionsModule, DeliveriesModule, DispatcherModule],
  controllers: [PartnerToolsController],
  providers: [PartnerToolsService, PartnerToolBudgets],
})
export class PartnerToolsModule {}
