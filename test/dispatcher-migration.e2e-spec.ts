import type { DataSource } from 'typeorm';
import { runMigrations } from '../src/database/migrate';
import { createEmptyDatabase, undoMigrationsAfter } from './support/database';

const DISPATCHER_TABLES = ['webhook_deliveries', 'webhook_events', 'webhook_jobs'];

describe('migrations CreateDispatcher, NotifySubscriptionsGone, WebhookJobsRoomForLeases and SubscriptionMoveClearsItsHistory', () => {
  let ds: DataSource;
  let drop: () => Promise<void>;

  beforeAll(async () => {
    // An empty database (not the migrated template), dropped afterwards (also by global teardown).
    ({ ds, drop } = await createEmptyDatabase('migd'));
  });
  afterAll(async () => {
    await drop?.();
  });

  const objects = async () => ({
    tables: (
      await ds.query(
        `SELECT table_name FROM information_schema.tables
         WHERE table_schema = 'public' AND table_name LIKE 'webhook%' ORDER BY 1`,
      )
    ).map((r: { table_name: string }) => r.table_name),
    functions: (await ds.query(`SELECT proname FROM pg_proc WHERE proname = 'webhook_jobs_notify'`)).length,
  });
  const goneTriggers = async () =>
    (
      await ds.query(
        `SELECT tgname FROM pg_trigger WHERE tgrelid = 'subscriptions'::regclass AND NOT tgisinternal ORDER BY 1`,
      )
    ).map((r: { tgname: string }) => r.tgname);

  const moveTriggers = async () =>
    (await ds.query(`SELECT tgname FROM pg_trigger WHERE tgname = 'TRG_subscriptions_moved_clear_history'`))
      .length;
  /** Undoes the migrations applied after `name` (later features add their own). */
  const undoAfter = (name: string) => undoMigrationsAfter(ds, name);

  const jobsOptions = async () =>
    (await ds.query(`SELECT reloptions FROM pg_class WHERE relname = 'webhook_jobs'`))[0]?.reloptions ?? null;

  it('creates the tables with named indexes, keys and the NOTIFY trigger, reverts cleanly and applies again', async () => {
    const applied = await runMigrations(ds);
    const ours = [
      'CreateDispatcher1763700200000',
      'NotifySubscriptionsGone1763700300000',
      'WebhookJobsRoomForLeases1763700400000',
    ];
    const first = applied.indexOf(ours[0]);
    expect(applied.slice(first, first + 3)).toEqual(ours);
    expect(applied).toContain('SubscriptionMoveClearsItsHistory1764200000000');
    // The schema as these migrations leave it (later ones have their own spec files).
    await undoAfter('SubscriptionMoveClearsItsHistory1764200000000');
    await expect(moveTriggers()).resolves.toBe(1);
    // Room on each page, so the claim's lease is a heap-only update.
    await expect(jobsOptions()).resolves.toEqual(['fillfactor=50']);
    await expect(goneTriggers()).resolves.toEqual([
      'TRG_subscriptions_gone_delete',
      'TRG_subscriptions_gone_move',
      'TRG_subscriptions_moved_clear_history',
    ]);
    await expect(objects()).resolves.toEqual({ tables: DISPATCHER_TABLES, functions: 1 });

    const indexes = await ds.query(
      `SELECT indexname FROM pg_indexes WHERE tablename LIKE 'webhook%' ORDER BY 1`,
    );
    expect(indexes.map((r: { indexname: string }) => r.indexname)).toEqual([
      'IDX_webhook_deliveries_subscription_sent_at',
      'IDX_webhook_jobs_subscription_id',
      'PK_webhook_deliveries',
      'PK_webhook_events',
      'PK_webhook_jobs',
    ]);
    const keys = await ds.query(
      `SELECT conname, confdeltype FROM pg_constraint WHERE contype = 'f' AND conrelid::regclass::text LIKE 'webhook%' ORDER BY 1`,
    );
    // 'c': ON DELETE CASCADE (deleting a subscription drops its jobs and history).
    expect(keys).toEqual([
      { conname: 'FK_webhook_deliveries_event', confdeltype: 'c' },
      { conname: 'FK_webhook_deliveries_subscription', confdeltype: 'c' },
      { conname: 'FK_webhook_jobs_event', confdeltype: 'c' },
      { conname: 'FK_webhook_jobs_subscription', confdeltype: 'c' },
    ]);
    const timeColumns = await ds.query(
      `SELECT DISTINCT data_type FROM information_schema.columns
       WHERE table_name LIKE 'webhook%' AND (column_name LIKE '%_at' OR column_name = 'lease_until')`,
    );
    expect(timeColumns).toEqual([{ data_type: 'timestamp with time zone' }]);
    await expect(
      ds.query(`SELECT tgname FROM pg_trigger WHERE tgname = 'TRG_webhook_jobs_notify'`),
    ).resolves.toHaveLength(1);

    await ds.undoLastMigration({ transaction: 'each' });
    await expect(moveTriggers()).resolves.toBe(0);
    await undoAfter('WebhookJobsRoomForLeases1763700400000');
    await expect(jobsOptions()).resolves.toEqual(['fillfactor=50']);
    await ds.undoLastMigration({ transaction: 'each' });
    await expect(jobsOptions()).resolves.toBeNull();
    await ds.undoLastMigration({ transaction: 'each' });
    await expect(goneTriggers()).resolves.toEqual([]);
    await expect(objects()).resolves.toEqual({ tables: DISPATCHER_TABLES, functions: 1 });
    await ds.undoLastMigration({ transaction: 'each' });
    await expect(objects()).resolves.toEqual({ tables: [], functions: 0 });
    await expect(ds.query(`SELECT 1 FROM subscriptions LIMIT 1`)).resolves.toEqual([]);

    await expect(runMigrations(ds)).resolves.toEqual(applied.slice(first));
    await undoAfter('SubscriptionMoveClearsItsHistory1764200000000');
    await expect(objects()).resolves.toEqual({ tables: DISPATCHER_TABLES, functions: 1 });
    await expect(goneTriggers()).resolves.toHaveLength(3);
    await expect(jobsOptions()).resolves.toEqual(['fillfactor=50']);
  });
});
