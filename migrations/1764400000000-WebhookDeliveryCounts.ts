import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The number of delivery records of each subscription (the history's totalElements), kept exact by
 * statement-level triggers on webhook_deliveries, in the transaction of every writer: the batched
 * completion, retention, the subscription-move trigger (SubscriptionMoveClearsItsHistory), the
 * cascade of a subscription's delete, TRUNCATE. Counting a subscription's records instead cost a
 * scan of all of them on every page (32 ms per page at 200,000 records). Each trigger sums its
 * rows per subscription and writes the count rows in subscription_id order, so concurrent writers
 * lock them in one order (no deadlock). No subscription's row means none of its records. The
 * count is not indexed, so its updates are heap-only with room on the page (fillfactor).
 */
export class WebhookDeliveryCounts1764400000000 implements MigrationInterface {
  name = 'WebhookDeliveryCounts1764400000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE "webhook_delivery_counts" (
        "subscription_id" integer NOT NULL,
        "records" bigint NOT NULL,
        CONSTRAINT "PK_webhook_delivery_counts" PRIMARY KEY ("subscription_id"),
        CONSTRAINT "FK_webhook_delivery_counts_subscription" FOREIGN KEY ("subscription_id")
          REFERENCES "subscriptions" ("id") ON DELETE CASCADE
      ) WITH (fillfactor = 50)`);
    await q.query(`
      CREATE FUNCTION "webhook_delivery_counts_add"() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        INSERT INTO webhook_delivery_counts AS c (subscription_id, records)
        SELECT subscription_id, count(*) FROM added_records GROUP BY subscription_id ORDER BY subscription_id
        ON CONFLICT (subscription_id) DO UPDATE SET records = c.records + EXCLUDED.records;
        RETURN NULL;
      END
      $$`);
    // A subscription's delete cascades to its count row too: the row is then gone, and the UPDATE
    // finds nothing to change.
    await q.query(`
      CREATE FUNCTION "webhook_delivery_counts_remove"() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        WITH removed AS (
          SELECT subscription_id, count(*) AS records FROM removed_records GROUP BY subscription_id
        ), locked AS (
          SELECT c.subscription_id, r.records
          FROM webhook_delivery_counts c JOIN removed r USING (subscription_id)
          ORDER BY c.subscription_id
          FOR UPDATE OF c
        )
        UPDATE webhook_delivery_counts c SET records = c.records - l.records
        FROM locked l WHERE c.subscription_id = l.subscription_id;
        RETURN NULL;
      END
      $$`);
    await q.query(`
      CREATE FUNCTION "webhook_delivery_counts_clear"() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        DELETE FROM webhook_delivery_counts;
        RETURN NULL;
      END
      $$`);
    await q.query(`
      CREATE TRIGGER "TRG_webhook_delivery_counts_add" AFTER INSERT ON "webhook_deliveries"
      REFERENCING NEW TABLE AS added_records
      FOR EACH STATEMENT EXECUTE FUNCTION "webhook_delivery_counts_add"()`);
    await q.query(`
      CREATE TRIGGER "TRG_webhook_delivery_counts_remove" AFTER DELETE ON "webhook_deliveries"
      REFERENCING OLD TABLE AS removed_records
      FOR EACH STATEMENT EXECUTE FUNCTION "webhook_delivery_counts_remove"()`);
    await q.query(`
      CREATE TRIGGER "TRG_webhook_delivery_counts_clear" AFTER TRUNCATE ON "webhook_deliveries"
      FOR EACH STATEMENT EXECUTE FUNCTION "webhook_delivery_counts_clear"()`);
    // The records already there (the table is locked meanwhile, so none is missed).
    await q.query(`LOCK TABLE "webhook_deliveries" IN SHARE MODE`);
    await q.query(`
      INSERT INTO "webhook_delivery_counts" ("subscription_id", "records")
      SELECT "subscription_id", count(*) FROM "webhook_deliveries" GROUP BY "subscription_id"`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TRIGGER "TRG_webhook_delivery_counts_clear" ON "webhook_deliveries"`);
    await q.query(`DROP TRIGGER "TRG_webhook_delivery_counts_remove" ON "webhook_deliveries"`);
    await q.query(`DROP TRIGGER "TRG_webhook_delivery_counts_add" ON "webhook_deliveries"`);
    await q.query(`DROP FUNCTION "webhook_delivery_counts_clear"()`);
    await q.query(`DROP FUNCTION "webhook_delivery_counts_remove"()`);
    await q.query(`DROP FUNCTION "webhook_delivery_counts_add"()`);
    await q.query(`DROP TABLE "webhook_delivery_counts"`);
  }
}
