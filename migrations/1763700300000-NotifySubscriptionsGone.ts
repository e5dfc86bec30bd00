import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * NOTIFY webhook_subscriptions_gone when subscriptions are deleted, or moved to another tenant,
 * whichever code path does it: every instance then drops the jobs of theirs it has claimed ahead
 * and not sent yet (contract section 5: a deleted subscription's pending deliveries are dropped).
 * NOTIFY is transactional (sent at commit) and identical ones in a transaction are sent once.
 */
export class NotifySubscriptionsGone1763700300000 implements MigrationInterface {
  name = 'NotifySubscriptionsGone1763700300000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE FUNCTION "webhook_subscriptions_gone_notify"() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        PERFORM pg_notify('webhook_subscriptions_gone', '');
        RETURN NULL;
      END
      $$`);
    await q.query(`
      CREATE TRIGGER "TRG_subscriptions_gone_delete" AFTER DELETE ON "subscriptions"
      FOR EACH STATEMENT EXECUTE FUNCTION "webhook_subscriptions_gone_notify"()`);
    await q.query(`
      CREATE TRIGGER "TRG_subscriptions_gone_move" AFTER UPDATE OF "tenant" ON "subscriptions"
      FOR EACH ROW WHEN (OLD."tenant" IS DISTINCT FROM NEW."tenant")
      EXECUTE FUNCTION "webhook_subscriptions_gone_notify"()`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TRIGGER "TRG_subscriptions_gone_move" ON "subscriptions"`);
    await q.query(`DROP TRIGGER "TRG_subscriptions_gone_delete" ON "subscriptions"`);
    await q.query(`DROP FUNCTION "webhook_subscriptions_gone_notify"()`);
  }
}
