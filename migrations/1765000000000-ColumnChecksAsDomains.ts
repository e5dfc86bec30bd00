import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The one-column CHECK constraints of the tables every publish and completion writes become the
 * CHECK constraints of domains, under the same names and with the same conditions.
 *
 * PostgreSQL prepares a table's CHECK constraints again for every statement that writes the table
 * (`ExecRelCheck`: each read back from its stored text, planned and compiled): about 40,000
 * instructions for one of these per statement, a ninth of a one-event publish. A domain's
 * constraints are prepared once per connection (the type cache) and cost about a tenth of that
 * (callgrind, docs/performance.md). The checks that compare columns with each other stay on their
 * tables, and so does `CHK_subscriptions_events`: TypeORM reads a column of an array domain as
 * another type (its schema builder would drop and add the column).
 *
 * Each column changes to its domain before the domain has a constraint, so that no table is
 * rewritten (a domain with constraints would make ALTER COLUMN TYPE copy the table), and the
 * constraint is added NOT VALID: it holds for every row written from now on, and the rows already
 * stored were held to the same condition by the table's check this transaction drops, so no scan of
 * the history runs while the migration holds its tables.
 */
/**
 * Each domain, its check (named as the table's was; the shared trigger domain's after the domain)
 * and the columns it types: table, column, the table check it replaces.
 */
const DOMAINS = [
  {
    domain: 'webhook_events_event_type',
    constraint: 'CHK_webhook_events_event_type',
    base: 'varchar(64)',
    check: `VALUE IN ('LICENCE_CREATED_SUCCESS', 'LICENCE_CREATED_FAILED')`,
    columns: [['webhook_events', 'event_type', 'CHK_webhook_events_event_type']],
  },
  {
    domain: 'webhook_deliveries_status',
    constraint: 'CHK_webhook_deliveries_status',
    base: 'varchar(16)',
    check: `VALUE IN ('SUCCESS', 'FAILED')`,
    columns: [['webhook_deliveries', 'status', 'CHK_webhook_deliveries_status']],
  },
  {
    // One list for the jobs' and the records' trigger, as DeliveryTrigger is one.
    domain: 'delivery_trigger',
    constraint: 'CHK_delivery_trigger',
    base: 'varchar(16)',
    check: `VALUE IN ('EVENT', 'RESEND', 'RECOVER', 'TEST')`,
    columns: [
      ['webhook_jobs', 'trigger', 'CHK_webhook_jobs_trigger'],
      ['webhook_deliveries', 'trigger', 'CHK_webhook_deliveries_trigger'],
    ],
  },
  {
    domain: 'subscriptions_max_deliveries_per_second',
    constraint: 'CHK_subscriptions_max_deliveries_per_second',
    base: 'integer',
    check: 'VALUE BETWEEN 1 AND 1000',
    columns: [['subscriptions', 'max_deliveries_per_second', 'CHK_subscriptions_max_deliveries_per_second']],
  },
] as const;

/** The table's check as it was, for `down`: the domain's condition on the column. */
const tableCheck = (check: string, column: string) => check.replace(/\bVALUE\b/g, `"${column}"`);

export class ColumnChecksAsDomains1765000000000 implements MigrationInterface {
  name = 'ColumnChecksAsDomains1765000000000';

  async up(q: QueryRunner): Promise<void> {
    for (const d of DOMAINS) {
      await q.query(`CREATE DOMAIN "${d.domain}" AS ${d.base}`);
      for (const [table, column, check] of d.columns) {
        await q.query(`ALTER TABLE "${table}" DROP CONSTRAINT "${check}",
          ALTER COLUMN "${column}" TYPE "${d.domain}"`);
      }
      await q.query(
        `ALTER DOMAIN "${d.domain}" ADD CONSTRAINT "${d.constraint}" CHECK (${d.check}) NOT VALID`,
      );
    }
  }

  async down(q: QueryRunner): Promise<void> {
    for (const d of [...DOMAINS].reverse()) {
      for (const [table, column, check] of d.columns) {
        await q.query(`ALTER TABLE "${table}" ALTER COLUMN "${column}" TYPE ${d.base},
          ADD CONSTRAINT "${check}" CHECK (${tableCheck(d.check, column)})`);
      }
      await q.query(`DROP DOMAIN "${d.domain}"`);
    }
  }
}
