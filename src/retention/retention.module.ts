import { Module } from '@nestjs/common';
import { DeliveriesModule } from '../deliveries/deliveries.module';
import { DispatcherModule } from '../dispatcher';
import { RetentionService } from './retention.service';

/** Deletes old events and delivery records, through the batches their owners export. */
@Module({
  imports: [DeliveriesModule, DispatcherModule],
  providers: [RetentionService],
  exports: [RetentionService],
})
export class RetentionModule {}
