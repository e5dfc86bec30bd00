import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Subscription health (contract section 11): what the recorded attempts say of each receiver, kept
 * by the statement that records them (the dispatcher's completion statement). UNKNOWN is
 * `last_attempt_at IS NULL`, FAILING `consecutive_failures > 0`, HEALTHY the rest; the checks keep
 * the three exclusive. Not indexed: every recorded batch updates these columns, and an indexed one
 * would make each update write every index of the table instead of a heap-only tuple; a tenant has
 * at most SUBSCRIPTIONS_PER_TENANT_MAX subscriptions, so the list filter reads its tenant's rows
 * through IDX_subscriptions_tenant_id. The lower fillfactor leaves room on each page for those
 * heap-only updates. The history already there sets the health of each subscription (its records
 * in sentAt order; the table locked meanwhile, so no record is missed). Deactivation (a 410, or a PUT) notifies every instance on the channel of
 * deletes and moves, so none sends the jobs it claimed ahead for the subscription.
 */
/** Each subscription's health from its records: the FAILED ones after its latest SUCCESS make the run. */
const HEALTH_FROM_HISTORY = `
  WITH last_success AS (
    SELECT DISTINCT ON ("subscription_id") "subscription_id", "sent_at", "id"
    FROM "webhook_deliveries" WHERE "status" = 'SUCCESS'
    ORDER BY "subscription_id", "sent_at" DESC, "id" DESC
  ), health AS (
    SELECT d."subscription_id",
      max(d."sent_at") AS last_attempt_at,
      max(l."sent_at") AS last_success_at,
      count(*) FILTER (WHERE l."id" IS NULL OR (d."sent_at", d."id") > (l."sent_at", l."id")) AS failures,
      min(d."sent_at") FILTER (WHERE l."id" IS NULL OR (d."sent_at", d."id") > (l."sent_at", l."id")) AS failing_since
    FROM "webhook_deliveries" d
    LEFT JOIN last_success l USING ("subscription_id")
    GROUP BY d."subscription_id"
  )
  UPDATE "subscriptions" s SET
    "last_attempt_at" = h.last_attempt_at,
    "last_success_at" = h.last_success_at,
    "consecutive_failures" = h.failures,
    "failing_since" = h.failing_since
  FROM health h WHERE s."id" = h."subscription_id"`;

export class SubscriptionHealth1764800000000 implements MigrationInterface {
  name = 'SubscriptionHealth1764800000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      ALTER TABLE "subscriptions"
        ADD COLUMN "last_attempt_at" timestamptz,
        ADD COLUMN "last_success_at" timestamptz,
        ADD COLUMN "failing_since" timestamptz,
        ADD COLUMN "consecutive_failures" integer NOT NULL DEFAULT 0,
        ADD CONSTRAINT "CHK_subscriptions_health" CHECK (
          "consecutive_failures" >= 0
          AND ("failing_since" IS NULL) = ("consecutive_failures" = 0)
          AND ("last_attempt_at" IS NOT NULL OR ("consecutive_failures" = 0 AND "last_success_at" IS NULL))),
        SET (fillfactor = 80)`);
    await q.query(`LOCK TABLE "webhook_deliveries" IN SHARE MODE`);
    await q.query(HEALTH_FROM_HISTORY);
    await q.query(`
      CREATE TRIGGER "TRG_subscriptions_gone_deactivate" AFTER UPDATE OF "active" ON "subscriptions"
      FOR EACH ROW WHEN (OLD."active" AND NOT NEW."active")
      EXECUTE FUNCTION "webhook_subscriptions_gone_notify"()`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TRIGGER "TRG_subscriptions_gone_deactivate" ON "subscriptions"`);
    await q.query(`
      ALTER TABLE "subscriptions"
        RESET (fillfactor),
        DROP CONSTRAINT "CHK_subscriptions_health",
        DROP COLUMN "consecutive_failures",
        DROP COLUMN "failing_since",
        DROP COLUMN "last_success_at",
        DROP COLUMN "last_attempt_at"`);
  }
}
