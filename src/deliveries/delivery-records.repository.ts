import { Injectable } from '@nestjs/common';
import type { RetentionStatement } from '../database/retention-batch';
import { deleteExpiredDeliveries } from './delivery-retention.statement';

/**
 * The delivery history's upkeep (table `webhook_deliveries`, owned by this module). Records are
 * written by the dispatcher's completion statement (src/dispatcher/completion.statement.ts), the
 * one statement of the transaction it owns, which also deletes their jobs and keeps the
 * subscriptions' health.
 */
@Injectable()
export class DeliveryRecords {
  /** Retention's batch over this table (the RetentionService walks it; this module owns the SQL). */
  readonly deleteExpiredBatch: RetentionStatement = deleteExpiredDeliveries;
}
