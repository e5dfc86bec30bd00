import { randomBytes } from 'node:crypto';
import type { DataSource } from 'typeorm';
import { runMigrations } from '../src/database/migrate';
import { createEmptyDatabase, undoMigrationsAfter } from './support/database';

const MIGRATION = 'SubscriptionCountsPerTenant1765300000000';

/**
 * The per-tenant count of subscriptions (migration SubscriptionCountsPerTenant): the count rows of
 * the tenants already there, then kept by every writer (insert, delete, move, TRUNCATE), and the
 * database as it was after `down`.
 */
describe('migration SubscriptionCountsPerTenant', () => {
  let ds: DataSource;
  let drop: () => Promise<void>;

  beforeAll(async () => {
    // An empty database (not the migrated template), dropped afterwards (also by global teardown).
    ({ ds, drop } = await createEmptyDatabase('migsc'));
  });
  afterAll(async () => {
    await drop?.();
  });

  /** Every tenant's count row and its real count, as [tenant, stored, counted]. */
  const counts = async () =>
    (
      await ds.query(
        `SELECT tenant, c.subscriptions AS stored,
                (SELECT count(*)::int FROM subscriptions s WHERE s.tenant = c.tenant) AS counted
         FROM tenant_subscription_counts c ORDER BY tenant`,
      )
    ).map((r: { tenant: string; stored: number; counted: number }) => [r.tenant, r.stored, r.counted]);
  const objects = async () => ({
    tables: (await ds.query(`SELECT 1 FROM pg_class WHERE relname = 'tenant_subscription_counts'`)).length,
    triggers: (
      await ds.query(
        `SELECT tgname FROM pg_trigger
         WHERE tgrelid = 'subscriptions'::regclass AND NOT tgisinternal AND tgname LIKE '%counts%' ORDER BY 1`,
      )
    ).map((r: { tgname: string }) => r.tgname),
    functions: (await ds.query(`SELECT 1 FROM pg_proc WHERE proname LIKE 'tenant_subscription_counts_%'`))
      .length,
  });
  /** `n` new subscriptions of `tenant` in one statement; returns their ids. */
  const subscriptions = async (tenant: string, n: number): Promise<number[]> =>
    (
      await ds.query(
        `INSERT INTO subscriptions (tenant, name, url, events)
         SELECT $1, 'sub-' || $2 || '-' || i, 'https://example.com/hook', '{LICENCE_CREATED_SUCCESS}'
         FROM generate_series(1, $3) AS i RETURNING id`,
        [tenant, randomBytes(4).toString('hex'), n],
      )
    ).map((r: { id: number }) => r.id);

  it('counts the subscriptions already there, keeps counting, reverts cleanly and applies again', async () => {
    const applied = await runMigrations(ds);
    expect(applied).toContain(MIGRATION);
    await undoMigrationsAfter(ds, MIGRATION);
    await ds.undoLastMigration({ transaction: 'each' });
    await expect(objects()).resolves.toEqual({ tables: 0, triggers: [], functions: 0 });

    // Subscriptions created before the migration are counted by it.
    const [a1] = await subscriptions('a', 3);
    await subscriptions('b', 2);
    await expect(runMigrations(ds)).resolves.toEqual(applied.slice(applied.indexOf(MIGRATION)));
    await undoMigrationsAfter(ds, MIGRATION);
    await expect(objects()).resolves.toEqual({
      tables: 1,
      triggers: [
        'TRG_tenant_subscription_counts_add',
        'TRG_tenant_subscription_counts_clear',
        'TRG_tenant_subscription_counts_move',
        'TRG_tenant_subscription_counts_remove',
      ],
      functions: 3,
    });
    await expect(counts()).resolves.toEqual([
      ['a', 3, 3],
      ['b', 2, 2],
    ]);

    // Inserts of several tenants at once, a delete, moves (and an update that moves nothing).
    await ds.query(
      `INSERT INTO subscriptions (tenant, name, url, events)
       SELECT t, 'sub-' || t || '-x', 'https://example.com/hook', '{LICENCE_CREATED_SUCCESS}'
       FROM unnest('{a,c}'::text[]) AS t`,
    );
    await ds.query(`DELETE FROM subscriptions WHERE tenant = 'b'`);
    await ds.query(`UPDATE subscriptions SET tenant = 'c' WHERE id = $1`, [a1]);
    await ds.query(`UPDATE subscriptions SET tenant = tenant, active = false WHERE tenant = 'a'`);
    await expect(counts()).resolves.toEqual([
      ['a', 3, 3],
      ['b', 0, 0],
      ['c', 2, 2],
    ]);
    await ds.query(`TRUNCATE subscriptions CASCADE`);
    await expect(counts()).resolves.toEqual([]);
    await subscriptions('d', 1);
    await expect(counts()).resolves.toEqual([['d', 1, 1]]);

    await ds.undoLastMigration({ transaction: 'each' });
    await expect(objects()).resolves.toEqual({ tables: 0, triggers: [], functions: 0 });
    await expect(ds.query(`SELECT count(*)::int AS n FROM subscriptions`)).resolves.toEqual([{ n: 1 }]);
  });
});
