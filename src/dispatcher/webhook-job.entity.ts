import { Column, CreateDateColumn, Entity, Index, PrimaryGeneratedColumn } from 'typeorm';
import { DeliveryTrigger } from '../common/reference/enums';

/**
 * One pending delivery of one event to one subscription (table `webhook_jobs`, the outbox).
 * Deleted in the transaction that writes its delivery record; `leaseUntil` / `leasedBy` mark a
 * worker's claim (migration CreateDispatcher explains the indexes and the NOTIFY trigger).
 */
@Entity({ name: 'webhook_jobs' })
@Index('IDX_webhook_jobs_subscription_id_id', ['subscriptionId', 'id'])
@Index('IDX_webhook_jobs_event_id', ['eventId'])
@Index('UQ_webhook_jobs_event_subscription_again', ['eventId', 'subscriptionId'], {
  unique: true,
  where: `"trigger" <> 'EVENT'`,
})
export class WebhookJob {
  @PrimaryGeneratedColumn({ type: 'bigint', primaryKeyConstraintName: 'PK_webhook_jobs' })
  id: string;

  /**
   * The event and the subscription: no foreign keys, the statements that write a job lock both and
   * triggers clear it when either is deleted (migration DispatchReferencesByStatements).
   */
  @Column({ name: 'event_id', type: 'bigint' })
  eventId: string;

  @Column({ name: 'subscription_id', type: 'integer' })
  subscriptionId: number;

  @Column({ name: 'lease_until', type: 'timestamptz', nullable: true })
  leaseUntil: Date | null;

  @Column({ name: 'leased_by', type: 'varchar', length: 64, nullable: true })
  leasedBy: string | null;

  /**
   * What made this attempt: a published event, a resend, a recovery or a test event. Of domain
   * delivery_trigger (CHK_delivery_trigger).
   */
  @Column({ type: 'varchar', length: 16, default: DeliveryTrigger.EVENT })
  trigger: DeliveryTrigger;

  /** How many times a worker claimed it: above 1 only after a crash or a shutdown cut it off. */
  @Column({ type: 'integer', default: 0 })
  attempts: number;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt: Date;
}
