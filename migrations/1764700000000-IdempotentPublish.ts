import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Idempotent publish (contract section 11): an event published with an `Idempotency-Key` keeps the
 * key, the SHA-256 of its canonical body and the receipt's matched count on its own row, so a replay
 * answers the first receipt and retention takes all of it with the event. The partial unique index
 * makes one event per (tenant, key) whatever the number of instances; events without a key (the
 * usual case) are not in it and cost nothing more.
 */
export class IdempotentPublish1764700000000 implements MigrationInterface {
  name = 'IdempotentPublish1764700000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      ALTER TABLE "webhook_events"
        ADD COLUMN "idempotency_key" varchar(255),
        ADD COLUMN "body_sha256" bytea,
        ADD COLUMN "matched_subscriptions" integer,
        ADD CONSTRAINT "CHK_webhook_events_idempotency" CHECK (
          ("idempotency_key" IS NULL) = ("body_sha256" IS NULL)
          AND ("idempotency_key" IS NULL) = ("matched_subscriptions" IS NULL))`);
    await q.query(`
      CREATE UNIQUE INDEX "UQ_webhook_events_tenant_idempotency_key"
        ON "webhook_events" ("tenant", "idempotency_key") WHERE "idempotency_key" IS NOT NULL`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP INDEX "UQ_webhook_events_tenant_idempotency_key"`);
    await q.query(`
      ALTER TABLE "webhook_events"
        DROP CONSTRAINT "CHK_webhook_events_idempotency",
        DROP COLUMN "matched_subscriptions",
        DROP COLUMN "body_sha256",
        DROP COLUMN "idempotency_key"`);
  }
}
