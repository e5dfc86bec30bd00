import { Check, Column, CreateDateColumn, Entity, Index, PrimaryGeneratedColumn } from 'typeorm';
import type { WebhookEvent } from '../common/reference/enums';

/**
 * A published licence event (table `webhook_events`, migration CreateDispatcher). `payload` is the
 * exact body every receiver gets; ids are bigint, read as strings by the driver and returned to
 * clients as JSON numbers. Written and read with SQL by the dispatcher; the entity documents it.
 */
@Entity({ name: 'webhook_events' })
@Index('UQ_webhook_events_tenant_idempotency_key', ['tenant', 'idempotencyKey'], {
  unique: true,
  where: `"idempotency_key" IS NOT NULL`,
})
@Check(
  'CHK_webhook_events_idempotency',
  `("idempotency_key" IS NULL) = ("body_sha256" IS NULL) AND ("idempotency_key" IS NULL) = ("matched_subscriptions" IS NULL)`,
)
export class WebhookEventRecord {
  @PrimaryGeneratedColumn({ type: 'bigint', primaryKeyConstraintName: 'PK_webhook_events' })
  id: string;

  /** Of domain webhook_events_event_type (CHK_webhook_events_event_type). */
  @Column({ name: 'event_type', type: 'varchar', length: 64 })
  eventType: WebhookEvent;

  @Column({ type: 'varchar', length: 255 })
  tenant: string;

  /** The event's timestamp: the `timestamp` of every copy sent. */
  @Column({ name: 'occurred_at', type: 'timestamptz' })
  occurredAt: Date;

  @Column({ type: 'json' })
  payload: unknown;

  /** Idempotent publish (contract section 11): the tenant's key, unique per tenant when set. */
  @Column({ name: 'idempotency_key', type: 'varchar', length: 255, nullable: true })
  idempotencyKey: string | null;

  /** SHA-256 of the keyed event's eventType, tenant and licence or error: a replay must match it. */
  @Column({ name: 'body_sha256', type: 'bytea', nullable: true })
  bodySha256: Buffer | null;

  /** The keyed event's receipt count, answered again on a replay. */
  @Column({ name: 'matched_subscriptions', type: 'int', nullable: true })
  matchedSubscriptions: number | null;

  /** The publish span's W3C `traceparent` when traced and sampled (contract section 12). */
  @Column({ name: 'trace_context', type: 'varchar', length: 55, nullable: true })
  traceContext: string | null;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt: Date;
}
