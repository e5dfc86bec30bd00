import { Module } from '@nestjs/common';
import { RetentionService } from './retention.service';

/** Deletes old events and delivery records, through their owners' statements. */
@Module({
  providers: [RetentionService],
  exports: [RetentionService],
})
export class RetentionModule {}
