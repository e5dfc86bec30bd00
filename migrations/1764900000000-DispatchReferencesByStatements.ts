import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The jobs (webhook_jobs) and delivery records (webhook_deliveries) keep their event and subscription
 * by the statements that write them, not by foreign keys. A foreign key checks every row inserted
 * with a query of its own (`SELECT … FOR KEY SHARE` of the event and of the subscription, through
 * SPI): PostgreSQL spent 63 % of a 200-job publish and 25 % of a 20-record completion on those
 * checks (instructions counted by callgrind, docs/performance.md), and every row is checked against
 * rows its statement has just locked or written:
 *
 * - a publish, idempotent publish and test event insert their event in the same statement as its
 *   jobs, and lock the subscriptions they give jobs to FOR KEY SHARE (the foreign key's own lock);
 * - a resend or recovery locks the subscription and the events FOR KEY SHARE;
 * - a completion records attempts only for subscriptions it locked FOR NO KEY UPDATE, and deletes
 *   the attempt's job in the same statement: retention, which keeps an event while a job or a record
 *   refers to it, sees one or the other in any snapshot.
 *
 * What the cascades did, statement-level triggers do in the same transaction: a deleted subscription
 * takes its jobs and its delivery history with it, and so does a deleted event (retention never
 * deletes one that is referred to; a resend committed while retention deleted its event goes, as it
 * went with the cascade). A new statement writing either table takes the same locks. TRUNCATE of
 * subscriptions or webhook_events no longer reaches the two tables (nothing in the service truncates).
 */
/** The keys of migration CreateDispatcher this one drops (and its `down` makes again): table, name, column, target. */
const FOREIGN_KEYS = [
  ['webhook_jobs', 'FK_webhook_jobs_event', 'event_id', 'webhook_events'],
  ['webhook_jobs', 'FK_webhook_jobs_subscription', 'subscription_id', 'subscriptions'],
  ['webhook_deliveries', 'FK_webhook_deliveries_event', 'event_id', 'webhook_events'],
  ['webhook_deliveries', 'FK_webhook_deliveries_subscription', 'subscription_id', 'subscriptions'],
] as const;

/** The tables whose deleted rows take their jobs and records with them, and the column naming them. */
const CLEARED_ON_DELETE = [
  ['subscriptions', 'subscription_id'],
  ['webhook_events', 'event_id'],
] as const;

export class DispatchReferencesByStatements1764900000000 implements MigrationInterface {
  name = 'DispatchReferencesByStatements1764900000000';

  async up(q: QueryRunner): Promise<void> {
    for (const [table, name] of FOREIGN_KEYS)
      await q.query(`ALTER TABLE "${table}" DROP CONSTRAINT "${name}"`);
    for (const [table, column] of CLEARED_ON_DELETE) {
      await q.query(`
        CREATE FUNCTION "${table}_deleted_clear_dispatch"() RETURNS trigger LANGUAGE plpgsql AS $$
        BEGIN
          DELETE FROM webhook_jobs WHERE ${column} IN (SELECT id FROM deleted);
          DELETE FROM webhook_deliveries WHERE ${column} IN (SELECT id FROM deleted);
          RETURN NULL;
        END
        $$`);
      await q.query(`
        CREATE TRIGGER "TRG_${table}_deleted_clear_dispatch" AFTER DELETE ON "${table}"
        REFERENCING OLD TABLE AS deleted FOR EACH STATEMENT
        EXECUTE FUNCTION "${table}_deleted_clear_dispatch"()`);
    }
  }

  async down(q: QueryRunner): Promise<void> {
    for (const [table] of CLEARED_ON_DELETE) {
      await q.query(`DROP TRIGGER "TRG_${table}_deleted_clear_dispatch" ON "${table}"`);
      await q.query(`DROP FUNCTION "${table}_deleted_clear_dispatch"()`);
    }
    for (const [table, name, column, target] of FOREIGN_KEYS) {
      await q.query(
        `ALTER TABLE "${table}" ADD CONSTRAINT "${name}" FOREIGN KEY ("${column}")
         REFERENCES "${target}"("id") ON DELETE CASCADE ON UPDATE NO ACTION`,
      );
    }
  }
}
