import { randomBytes } from 'node:crypto';
import type { DataSource } from 'typeorm';
import { runMigrations } from '../src/database/migrate';
import { createEmptyDatabase, undoMigrationsAfter } from './support/database';

const MIGRATION = 'WebhookDeliveryCounts1764400000000';

describe('migration WebhookDeliveryCounts', () => {
  let ds: DataSource;
  let drop: () => Promise<void>;

  beforeAll(async () => {
    // An empty database (not the migrated template), dropped afterwards (also by global teardown).
    ({ ds, drop } = await createEmptyDatabase('migc'));
  });
  afterAll(async () => {
    await drop?.();
  });

  const counts = async () =>
    (
      await ds.query(
        `SELECT subscription_id AS "subscriptionId", records::int FROM webhook_delivery_counts ORDER BY 1`,
      )
    ).map((r: { subscriptionId: number; records: number }) => [r.subscriptionId, r.records]);
  const objects = async () => ({
    tables: (await ds.query(`SELECT 1 FROM pg_class WHERE relname = 'webhook_delivery_counts'`)).length,
    triggers: (
      await ds.query(
        `SELECT tgname FROM pg_trigger WHERE tgrelid = 'webhook_deliveries'::regclass AND NOT tgisinternal ORDER BY 1`,
      )
    ).map((r: { tgname: string }) => r.tgname),
    functions: (await ds.query(`SELECT 1 FROM pg_proc WHERE proname LIKE 'webhook_delivery_counts_%'`))
      .length,
  });
  /** `n` records of a new subscription; returns its id. */
  const subscriptionWithRecords = async (n: number): Promise<number> => {
    const [{ id }] = await ds.query(
      `INSERT INTO subscriptions (tenant, name, url, events)
       VALUES ('t', $1, 'https://example.com/hook', '{LICENCE_CREATED_SUCCESS}') RETURNING id`,
      [`sub-${randomBytes(4).toString('hex')}`],
    );
    const [event] = await ds.query(
      `INSERT INTO webhook_events (event_type, tenant, occurred_at, payload)
       VALUES ('LICENCE_CREATED_SUCCESS', 't', now(), '{}') RETURNING id`,
    );
    await ds.query(
      `INSERT INTO webhook_deliveries (event_id, subscription_id, event_type, status, sent_at)
       SELECT $1, $2, 'LICENCE_CREATED_SUCCESS', 'SUCCESS', now() FROM generate_series(1, $3)`,
      [event.id, id, n],
    );
    return id;
  };

  it('counts the records already there, keeps counting, reverts cleanly and applies again', async () => {
    const applied = await runMigrations(ds);
    expect(applied).toContain(MIGRATION);
    await undoMigrationsAfter(ds, MIGRATION);
    await ds.undoLastMigration({ transaction: 'each' });
    await expect(objects()).resolves.toEqual({ tables: 0, triggers: [], functions: 0 });

    // Records written before the migration are counted by it.
    const a = await subscriptionWithRecords(3);
    const b = await subscriptionWithRecords(2);
    await subscriptionWithRecords(0);
    await expect(runMigrations(ds)).resolves.toEqual(applied.slice(applied.indexOf(MIGRATION)));
    await undoMigrationsAfter(ds, MIGRATION);
    await expect(objects()).resolves.toEqual({
      tables: 1,
      triggers: [
        'TRG_webhook_delivery_counts_add',
        'TRG_webhook_delivery_counts_clear',
        'TRG_webhook_delivery_counts_remove',
      ],
      functions: 3,
    });
    await expect(counts()).resolves.toEqual([
      [a, 3],
      [b, 2],
    ]);
    const c = await subscriptionWithRecords(4);
    await ds.query(`DELETE FROM webhook_deliveries WHERE id IN (SELECT min(id) FROM webhook_deliveries)`);
    await expect(counts()).resolves.toEqual([
      [a, 2],
      [b, 2],
      [c, 4],
    ]);

    await ds.undoLastMigration({ transaction: 'each' });
    await expect(objects()).resolves.toEqual({ tables: 0, triggers: [], functions: 0 });
    await expect(ds.query(`SELECT count(*)::int AS n FROM webhook_deliveries`)).resolves.toEqual([{ n: 8 }]);
  });
});
