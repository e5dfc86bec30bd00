import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Subscription health (contract section 11): what the recorded attempts say of each receiver, kept
 * by the statement that records them (the dispatcher's completion statement). UNKNOWN is
 * `last_attempt_at IS NULL`, FAILING `consecutive_failures > 0`, HEALTHY the rest; the checks keep
 * the three exclusive. Not indexed: every recorded batch updates these columns, and an indexed one
 * would make each update write every index of the table instead of a heap-only tuple; a tenant has
 * at most SUBSCRIPTIONS_PER_TENANT_MAX subscriptions, so the list filter reads its tenant's rows
 * through IDX_subscriptions_tenant_id. The lower fillfactor leaves room on each page for those
 * heap-only updates. Deactivation (a 410, or a PUT) notifies every instance on the channel of
 * deletes and moves, so none sends the jobs it claimed ahead for the subscription.
 */
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
