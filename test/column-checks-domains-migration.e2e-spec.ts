import type { DataSource } from 'typeorm';
import { runMigrations } from '../src/database/migrate';
import { createDatabaseAtMigration, undoMigrationsAfter } from './support/database';

const MIGRATION = 'ColumnChecksAsDomains1765000000000';

/** The columns the migration moves, with the table check each had and the domain it gets. */
const COLUMNS = [
  ['subscriptions', 'max_deliveries_per_second', 'CHK_subscriptions_max_deliveries_per_second'],
  ['webhook_deliveries', 'status', 'CHK_webhook_deliveries_status'],
  ['webhook_deliveries', 'trigger', 'CHK_webhook_deliveries_trigger'],
  ['webhook_events', 'event_type', 'CHK_webhook_events_event_type'],
  ['webhook_jobs', 'trigger', 'CHK_webhook_jobs_trigger'],
] as const;
const TABLES = [...new Set(COLUMNS.map(([table]) => table))];

/** Every CHECK of the four tables and of their columns' domains, with its definition as PostgreSQL prints it. */
const CHECKS = `
  SELECT CASE WHEN c.contypid = 0 THEN c.conrelid::regclass::text ELSE 'domain ' || t.typname END AS "on", c.conname AS name,
    pg_get_constraintdef(c.oid) AS definition
  FROM pg_constraint c LEFT JOIN pg_type t ON t.oid = c.contypid
  WHERE c.contype = 'c' AND (c.conrelid = ANY ($1::regclass[]) OR c.contypid IN (
    SELECT atttypid FROM pg_attribute WHERE attrelid = ANY ($1::regclass[])))
  ORDER BY 1, 2`;

/** Each moved column's type as information_schema reports it, and its domain. */
const COLUMN_TYPES = `
  SELECT table_name || '.' || column_name AS "column", data_type, character_maximum_length AS length,
    domain_name AS domain
  FROM information_schema.columns
  WHERE (table_name, column_name) IN (${COLUMNS.map(([t, c]) => `('${t}', '${c}')`).join(', ')})
  ORDER BY 1`;

describe('migration ColumnChecksAsDomains', () => {
  let ds: DataSource;
  let drop: () => Promise<void>;
  const checks = () => ds.query(CHECKS, [TABLES]);
  /** Applies the pending migrations and undoes the later ones again: the first it applied. */
  const applyAgain = async () => {
    const [first] = await runMigrations(ds);
    await undoMigrationsAfter(ds, MIGRATION);
    return first;
  };
  const files = () =>
    ds.query(`SELECT relname, relfilenode FROM pg_class WHERE relname = ANY ($1) ORDER BY 1`, [TABLES]);

  beforeAll(async () => {
    ({ ds, drop } = await createDatabaseAtMigration('migr', MIGRATION));
  });
  afterAll(async () => {
    await drop?.();
  });

  it('moves the one-column checks to domains without rewriting a table, keeps the rows, reverts and applies again', async () => {
    // Back to the table checks, with a row in each table.
    await ds.undoLastMigration({ transaction: 'each' });
    const before = await checks();
    const typesBefore = await ds.query(COLUMN_TYPES);
    expect(before.map((c: { name: string }) => c.name)).toEqual(
      expect.arrayContaining(COLUMNS.map(([, , check]) => check)),
    );
    const [sub] = await ds.query(
      `INSERT INTO subscriptions (tenant, name, url, events, max_deliveries_per_second)
       VALUES ('t', 'n', 'https://x.example', '{LICENCE_CREATED_SUCCESS}', 5) RETURNING id`,
    );
    const [event] = await ds.query(
      `INSERT INTO webhook_events (event_type, tenant, occurred_at, payload)
       VALUES ('LICENCE_CREATED_FAILED', 't', now(), '{}') RETURNING id`,
    );
    await ds.query(`INSERT INTO webhook_jobs (event_id, subscription_id, trigger) VALUES ($1, $2, 'TEST')`, [
      event.id,
      sub.id,
    ]);
    await ds.query(
      `INSERT INTO webhook_deliveries (event_id, subscription_id, event_type, status, sent_at, trigger)
       VALUES ($1, $2, 'LICENCE_CREATED_FAILED', 'FAILED', now(), 'RECOVER')`,
      [event.id, sub.id],
    );
    const filesBefore = await files();

    await expect(applyAgain()).resolves.toEqual(MIGRATION);
    // Same files: no table was copied.
    await expect(files()).resolves.toEqual(filesBefore);
    await expect(ds.query(COLUMN_TYPES)).resolves.toEqual(
      (typesBefore as Array<{ column: string; domain: null }>).map((t) => ({
        ...t,
        domain: {
          'subscriptions.max_deliveries_per_second': 'subscriptions_max_deliveries_per_second',
          'webhook_deliveries.status': 'webhook_deliveries_status',
          'webhook_deliveries.trigger': 'delivery_trigger',
          'webhook_events.event_type': 'webhook_events_event_type',
          'webhook_jobs.trigger': 'delivery_trigger',
        }[t.column],
      })),
    );
    const after = await checks();
    // The other checks stay on their tables; the moved ones are the domains'.
    expect(after).toEqual(
      expect.arrayContaining(
        before.filter((c: { name: string }) => !COLUMNS.some(([, , check]) => check === c.name)),
      ),
    );
    expect(after.filter((c: { on: string }) => c.on.startsWith('domain '))).toEqual([
      {
        on: 'domain delivery_trigger',
        name: 'CHK_delivery_trigger',
        definition: expect.stringMatching(
          /^CHECK \(\(\(VALUE\)::text = ANY .*'EVENT'.*'RESEND'.*'RECOVER'.*'TEST'.* NOT VALID$/,
        ),
      },
      {
        on: 'domain subscriptions_max_deliveries_per_second',
        name: 'CHK_subscriptions_max_deliveries_per_second',
        definition: 'CHECK (((VALUE >= 1) AND (VALUE <= 1000))) NOT VALID',
      },
      {
        on: 'domain webhook_deliveries_status',
        name: 'CHK_webhook_deliveries_status',
        definition: expect.stringMatching(
          /^CHECK \(\(\(VALUE\)::text = ANY .*'SUCCESS'.*'FAILED'.* NOT VALID$/,
        ),
      },
      {
        on: 'domain webhook_events_event_type',
        name: 'CHK_webhook_events_event_type',
        definition: expect.stringMatching(
          /^CHECK \(\(\(VALUE\)::text = ANY .*'LICENCE_CREATED_SUCCESS'.*'LICENCE_CREATED_FAILED'.* NOT VALID$/,
        ),
      },
    ]);
    await expect(
      ds.query(`SELECT (SELECT max_deliveries_per_second FROM subscriptions) AS rate,
        (SELECT event_type FROM webhook_events) AS "eventType", (SELECT trigger FROM webhook_jobs) AS job,
        (SELECT status || ' ' || trigger FROM webhook_deliveries) AS record`),
    ).resolves.toEqual([
      { rate: 5, eventType: 'LICENCE_CREATED_FAILED', job: 'TEST', record: 'FAILED RECOVER' },
    ]);

    // Each domain refuses what its table's check refused, naming its check.
    const refused = [
      [
        `UPDATE subscriptions SET max_deliveries_per_second = 1001`,
        'CHK_subscriptions_max_deliveries_per_second',
      ],
      [`UPDATE webhook_deliveries SET status = 'LOST'`, 'CHK_webhook_deliveries_status'],
      [`UPDATE webhook_deliveries SET trigger = 'LATER'`, 'CHK_delivery_trigger'],
      [`UPDATE webhook_jobs SET trigger = 'LATER'`, 'CHK_delivery_trigger'],
      [`UPDATE webhook_events SET event_type = 'LICENCE_DELETED'`, 'CHK_webhook_events_event_type'],
    ];
    for (const [statement, check] of refused) {
      await expect(ds.query(statement)).rejects.toThrow(new RegExp(`violates check constraint "${check}"`));
    }
    // A parameter as the service sends one (varchar) still goes in.
    await ds.query(`UPDATE webhook_jobs SET trigger = $1::varchar`, ['RESEND']);
    await ds.query(`UPDATE subscriptions SET max_deliveries_per_second = NULL`);

    await ds.undoLastMigration({ transaction: 'each' });
    await expect(checks()).resolves.toEqual(before);
    await expect(ds.query(COLUMN_TYPES)).resolves.toEqual(typesBefore);
    await expect(
      ds.query(
        `SELECT typname FROM pg_type WHERE typname IN ('delivery_trigger', 'webhook_deliveries_status')`,
      ),
    ).resolves.toEqual([]);
    await expect(applyAgain()).resolves.toEqual(MIGRATION);
  });
});
