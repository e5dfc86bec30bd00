import { Column, CreateDateColumn, Entity, PrimaryGeneratedColumn, UpdateDateColumn } from 'typeorm';
import type { WebhookEvent } from '../common/reference/enums';

/** Indexes are made (and explained) in migration CreateSubscriptions. */
@Entity({ name: 'subscriptions' })
export class Subscription {
  @PrimaryGeneratedColumn({ type: 'integer', primaryKeyConstraintName: 'PK_subscriptions' })
  id: number;

  @Column({ type: 'varchar', length: 255 })
  tenant: string;

  @Column({ type: 'boolean', default: true })
  active: boolean;

  @Column({ type: 'varchar', length: 255 })
  name: string;

  @Column({ type: 'varchar', length: 255 })
  url: string;

  @Column({ type: 'varchar', length: 1000, nullable: true })
  description: string | null;

  @Column({ type: 'varchar', length: 64, array: true })
  events: WebhookEvent[];

  @Column({ name: 'header_name', type: 'varchar', length: 255, nullable: true })
  headerName: string | null;

  /** AES-256-GCM with SECRETS_KEY (common/crypto/secret-box.ts); never returned by the API. */
  @Column({ name: 'header_value_encrypted', type: 'text', nullable: true, select: false })
  headerValueEncrypted: string | null;

  /**
   * Standard Webhooks signing secret (`whsec_…`, contract section 9), AES-256-GCM with SECRETS_KEY;
   * only GET …/secret and its rotation return it. Null only on rows from before migration
   * SubscriptionSigningSecrets, until SubscriptionSecretsBootstrap (or a first read) fills it.
   */
  @Column({ name: 'signing_secret_encrypted', type: 'text', nullable: true, select: false })
  signingSecretEncrypted: string | null;

  /** The secret before the last rotation: it keeps signing until previousSigningSecretUntil. */
  @Column({ name: 'previous_signing_secret_encrypted', type: 'text', nullable: true, select: false })
  previousSigningSecretEncrypted: string | null;

  @Column({ name: 'previous_signing_secret_until', type: 'timestamptz', nullable: true, select: false })
  previousSigningSecretUntil: Date | null;

  /** Contract section 11: at most this many deliveries start per second, on all instances; null: no limit. */
  @Column({ name: 'max_deliveries_per_second', type: 'integer', nullable: true })
  maxDeliveriesPerSecond: number | null;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt: Date;

  @UpdateDateColumn({ name: 'updated_at', type: 'timestamptz' })
  updatedAt: Date;
}
