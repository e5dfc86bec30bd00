import { MigrationInterface, QueryRunner } from 'typeorm';

/** The insert trigger's function, waking the instances for the inserted jobs that `unleased` picks. */
const notifyFunction = (unleased: string) => `
  CREATE OR REPLACE FUNCTION "webhook_jobs_notify"() RETURNS trigger LANGUAGE plpgsql AS $$
  BEGIN
    IF EXISTS (SELECT 1 FROM new_jobs${unleased}) THEN
      PERFORM pg_notify('webhook_jobs', '');
    END IF;
    RETURN NULL;
  END
  $$`;

/**
 * A publish may lease its jobs to the instance writing them (WebhookEventsRepository.insertLeasing):
 * nobody else can claim those until the lease runs out, so the NOTIFY that wakes every instance to
 * claim is sent only when some inserted job is unleased. Jobs whose lease runs out are found by the
 * sweep, as before.
 */
export class PublishLeasedJobs1765100000000 implements MigrationInterface {
  name = 'PublishLeasedJobs1765100000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(notifyFunction(' WHERE leased_by IS NULL'));
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(notifyFunction(''));
  }
}
