import { Column, CreateDateColumn, Entity, Index, PrimaryGeneratedColumn } from 'typeorm';
import { DeliveryTrigger, type DeliveryStatus, type WebhookEvent } from '../common/reference/enums';

/**
 * One delivery attempt (table `webhook_deliveries`, owned by this module): written by the
 * dispatcher's completion statement (with the delete of their jobs and the subscriptions' health),
 * read by GET /webhooks/subscriptions/{id}/deliveries; counted per subscription in
 * webhook_delivery_counts (migration WebhookDeliveryCounts).
 */
@Entity({ name: 'webhook_deliveries' })
// sent_at DESC, id DESC in the migration: TypeORM's @Index has no order (nor compares one).
@Index('IDX_webhook_deliveries_subscription_sent_at', ['subscriptionId', 'sentAt', 'id'])
@Index('IDX_webhook_deliveries_event_id', ['eventId'])
export class WebhookDelivery {
  @PrimaryGeneratedColumn({ type: 'bigint', primaryKeyConstraintName: 'PK_webhook_deliveries' })
  id: string;

  /**
   * The event and the subscription: no foreign keys. The completion that writes a record locks its
   * subscription, retention keeps an event while a job or a record refers to it, and triggers clear
   * the record when either is deleted (migration DispatchReferencesByStatements).
   */
  @Column({ name: 'event_id', type: 'bigint' })
  eventId: string;

  @Column({ name: 'subscription_id', type: 'integer' })
  subscriptionId: number;

  @Column({ name: 'event_type', type: 'varchar', length: 64 })
  eventType: WebhookEvent;

  /** Of domain webhook_deliveries_status (CHK_webhook_deliveries_status). */
  @Column({ type: 'varchar', length: 16 })
  status: DeliveryStatus;

  /** null when no response arrived (time-out, refused, DNS, TLS, blocked). */
  @Column({ name: 'http_status_code', type: 'integer', nullable: true })
  httpStatusCode: number | null;

  @Column({ name: 'error_message', type: 'varchar', length: 1000, nullable: true })
  errorMessage: string | null;

  /** What made this attempt (contract section 9). Of domain delivery_trigger (CHK_delivery_trigger). */
  @Column({ type: 'varchar', length: 16, default: DeliveryTrigger.EVENT })
  trigger: DeliveryTrigger;

  /** From the request's start to the end of the answer or the failure; null when nothing was sent. */
  @Column({ name: 'duration_ms', type: 'integer', nullable: true })
  durationMs: number | null;

  /** The first 1,024 bytes of the receiver's answer as UTF-8 text; null when no answer arrived. */
  @Column({ name: 'response_body', type: 'text', nullable: true })
  responseBody: string | null;

  @Column({ name: 'sent_at', type: 'timestamptz' })
  sentAt: Date;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt: Date;
}
