import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Delivery rate per subscription (contract section 11). `max_deliveries_per_second` on the
 * subscription (null: no limit). The limit holds across instances through one row per limited
 * subscription in `subscription_delivery_slots`, taken inside the claim statement
 * (WebhookJobsRepository): `next_slot_at` is the start time of its next free delivery slot, on the
 * database's clock; a claim takes the slots due within a short horizon, one `spacing_ms` apart, and
 * moves it on. Concurrent claims serialise on that row (ON CONFLICT … DO UPDATE reads its latest
 * version). The row appears at the subscription's first limited claim and goes with the
 * subscription; `fillfactor = 50` keeps its frequent updates heap-only.
 */
export class SubscriptionDeliveryRate1764800100000 implements MigrationInterface {
  name = 'SubscriptionDeliveryRate1764800100000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      ALTER TABLE "subscriptions"
        ADD COLUMN "max_deliveries_per_second" integer,
        ADD CONSTRAINT "CHK_subscriptions_max_deliveries_per_second"
          CHECK ("max_deliveries_per_second" BETWEEN 1 AND 1000)`);
    await q.query(`
      CREATE TABLE "subscription_delivery_slots" (
        "subscription_id" integer NOT NULL,
        "next_slot_at" timestamptz NOT NULL,
        "granted" integer NOT NULL,
        "spacing_ms" double precision NOT NULL,
        CONSTRAINT "PK_subscription_delivery_slots" PRIMARY KEY ("subscription_id"),
        CONSTRAINT "FK_subscription_delivery_slots_subscription" FOREIGN KEY ("subscription_id")
          REFERENCES "subscriptions" ("id") ON DELETE CASCADE
      ) WITH (fillfactor = 50)`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE "subscription_delivery_slots"`);
    await q.query(`
      ALTER TABLE "subscriptions"
        DROP CONSTRAINT "CHK_subscriptions_max_deliveries_per_second",
        DROP COLUMN "max_deliveries_per_second"`);
  }
}
