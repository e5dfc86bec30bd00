import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * What a subscription leaves behind is removed by the database, not by the Subscriptions module's
 * code: on DELETE the foreign keys cascade (CreateDispatcher); when an administrator moves it to
 * another tenant, this trigger drops its pending jobs and its delivery history in the same
 * transaction, as a DELETE would (contract section 5: one tenant's events never reach, nor show to,
 * another). Row-level and only when the tenant changes, so ordinary updates pay nothing.
 */
export class SubscriptionMoveClearsItsHistory1764200000000 implements MigrationInterface {
  name = 'SubscriptionMoveClearsItsHistory1764200000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE FUNCTION "subscriptions_moved_clear_history"() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        DELETE FROM webhook_jobs WHERE subscription_id = NEW.id;
        DELETE FROM webhook_deliveries WHERE subscription_id = NEW.id;
        RETURN NULL;
      END
      $$`);
    await q.query(`
      CREATE TRIGGER "TRG_subscriptions_moved_clear_history" AFTER UPDATE OF "tenant" ON "subscriptions"
      FOR EACH ROW WHEN (OLD."tenant" IS DISTINCT FROM NEW."tenant")
      EXECUTE FUNCTION "subscriptions_moved_clear_history"()`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TRIGGER "TRG_subscriptions_moved_clear_history" ON "subscriptions"`);
    await q.query(`DROP FUNCTION "subscriptions_moved_clear_history"()`);
  }
}
