import { MigrationInterface, QueryRunner } from 'typeorm';

const TRIGGERS = `('EVENT', 'RESEND', 'RECOVER', 'TEST')`;

/**
 * Partner tools (contract section 9):
 * - `trigger` on webhook_jobs and webhook_deliveries: what made the attempt (a published event, a
 *   resend, a recovery, a test event); existing rows are EVENT.
 * - `duration_ms` and `response_body` (the first 1,024 bytes of the answer) on webhook_deliveries.
 * - UQ_webhook_jobs_event_subscription_again: at most one pending resend/recover/test job per event
 *   and subscription, so two recoveries (or a resend and a recovery) at once enqueue an event once.
 *   Partial: a published event's jobs are unique by construction, and skip the index's upkeep.
 * The list filters need no index: they narrow one subscription's history, whose range
 * IDX_webhook_deliveries_subscription_sent_at already reads (on sent_at, for since/until too).
 */
export class DeliveryTriggersAndDetails1764400200000 implements MigrationInterface {
  name = 'DeliveryTriggersAndDetails1764400200000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      ALTER TABLE "webhook_jobs"
        ADD COLUMN "trigger" varchar(16) NOT NULL DEFAULT 'EVENT',
        ADD CONSTRAINT "CHK_webhook_jobs_trigger" CHECK ("trigger" IN ${TRIGGERS})`);
    await q.query(`
      ALTER TABLE "webhook_deliveries"
        ADD COLUMN "trigger" varchar(16) NOT NULL DEFAULT 'EVENT',
        ADD COLUMN "duration_ms" integer,
        ADD COLUMN "response_body" text,
        ADD CONSTRAINT "CHK_webhook_deliveries_trigger" CHECK ("trigger" IN ${TRIGGERS})`);
    await q.query(`
      CREATE UNIQUE INDEX "UQ_webhook_jobs_event_subscription_again"
      ON "webhook_jobs" ("event_id", "subscription_id") WHERE "trigger" <> 'EVENT'`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP INDEX "UQ_webhook_jobs_event_subscription_again"`);
    await q.query(`
      ALTER TABLE "webhook_deliveries"
        DROP CONSTRAINT "CHK_webhook_deliveries_trigger",
        DROP COLUMN "response_body",
        DROP COLUMN "duration_ms",
        DROP COLUMN "trigger"`);
    await q.query(`
      ALTER TABLE "webhook_jobs" DROP CONSTRAINT "CHK_webhook_jobs_trigger", DROP COLUMN "trigger"`);
  }
}
