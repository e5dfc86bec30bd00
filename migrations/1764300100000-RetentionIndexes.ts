import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Retention deletes events (contract section 8), so the foreign keys to webhook_events now need an
 * index on their referencing side: each deleted event makes PostgreSQL look for its jobs (the
 * cascade) and retention for its delivery records, which without these would scan both tables once
 * per event. Records are deleted by age walking their primary key (they are appended in time
 * order), so no index on sent_at is added.
 */
export class RetentionIndexes1764300100000 implements MigrationInterface {
  name = 'RetentionIndexes1764300100000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`CREATE INDEX "IDX_webhook_jobs_event_id" ON "webhook_jobs" ("event_id")`);
    await q.query(`CREATE INDEX "IDX_webhook_deliveries_event_id" ON "webhook_deliveries" ("event_id")`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP INDEX "IDX_webhook_deliveries_event_id"`);
    await q.query(`DROP INDEX "IDX_webhook_jobs_event_id"`);
  }
}
