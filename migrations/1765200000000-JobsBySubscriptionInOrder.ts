import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The claim finds the due jobs of owners with room without walking past the jobs of those at their
 * cap (WebhookJobsRepository, claimSql): when the oldest due jobs are mostly theirs (a hung
 * receiver's backlog, a tenant at its share during its own burst), it visits each subscription with
 * jobs once and reads the oldest due ones of those with room. That needs a subscription's jobs in
 * the order of their ids: the index on `subscription_id` alone keeps equal keys in the heap's order.
 * The new index serves what the old one did (a subscription's jobs, for its delete or move). Built
 * without CONCURRENTLY (migrations run in a transaction): the outbox holds pending jobs only, and
 * publishes wait for the build.
 */
export class JobsBySubscriptionInOrder1765200000000 implements MigrationInterface {
  name = 'JobsBySubscriptionInOrder1765200000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(
      `CREATE INDEX "IDX_webhook_jobs_subscription_id_id" ON "webhook_jobs" ("subscription_id", "id")`,
    );
    await q.query(`DROP INDEX "IDX_webhook_jobs_subscription_id"`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`CREATE INDEX "IDX_webhook_jobs_subscription_id" ON "webhook_jobs" ("subscription_id")`);
    await q.query(`DROP INDEX "IDX_webhook_jobs_subscription_id_id"`);
  }
}
