import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * webhook_jobs is a queue: every row is inserted, leased and deleted within seconds, so its dead
 * rows pile up far faster than its size suggests. The default trigger (20 % of the table dead) lets
 * a busy, mostly empty table bloat before a vacuum comes; here a vacuum (and an analyze, so the
 * claim's plan follows the backlog) comes after every 1,000 changed rows, without the cost-based
 * pauses that would let it fall behind the dispatcher.
 */
export class WebhookJobsQueueVacuum1764300000000 implements MigrationInterface {
  name = 'WebhookJobsQueueVacuum1764300000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      ALTER TABLE "webhook_jobs" SET (
        autovacuum_vacuum_scale_factor = 0,
        autovacuum_vacuum_threshold = 1000,
        autovacuum_vacuum_cost_delay = 0,
        autovacuum_analyze_scale_factor = 0,
        autovacuum_analyze_threshold = 1000
      )`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`
      ALTER TABLE "webhook_jobs" RESET (
        autovacuum_vacuum_scale_factor,
        autovacuum_vacuum_threshold,
        autovacuum_vacuum_cost_delay,
        autovacuum_analyze_scale_factor,
        autovacuum_analyze_threshold
      )`);
  }
}
