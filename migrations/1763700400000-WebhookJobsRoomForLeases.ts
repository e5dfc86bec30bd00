import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Leaves half of each webhook_jobs page free. Every job is written three times: inserted, leased
 * (the claim's UPDATE) and deleted. With room on its page the lease is a heap-only update: the new
 * row version stays on the same page and no index entry is added, since no indexed column changes.
 * Measured on the dispatcher's own statements (a 100 × 200 burst, CPU of the database backend):
 * about a quarter less database CPU per delivery. Applies to pages written from now on, which in
 * an outbox is soon all of them.
 */
export class WebhookJobsRoomForLeases1763700400000 implements MigrationInterface {
  name = 'WebhookJobsRoomForLeases1763700400000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE "webhook_jobs" SET (fillfactor = 50)`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE "webhook_jobs" RESET (fillfactor)`);
  }
}
