import type { DataSource } from 'typeorm';
import { runMigrations } from '../src/database/migrate';
import { createEmptyDatabase, undoMigrationsAfter } from './support/database';

const QUEUE_VACUUM = [
  'autovacuum_vacuum_scale_factor=0',
  'autovacuum_vacuum_threshold=1000',
  'autovacuum_vacuum_cost_delay=0',
  'autovacuum_analyze_scale_factor=0',
  'autovacuum_analyze_threshold=1000',
];

describe('migrations WebhookJobsQueueVacuum and RetentionIndexes', () => {
  let ds: DataSource;
  let drop: () => Promise<void>;

  beforeAll(async () => {
    // An empty database (not the migrated template), dropped afterwards (also by global teardown).
    ({ ds, drop } = await createEmptyDatabase('migr'));
  });
  afterAll(async () => {
    await drop?.();
  });

  /** Undoes the migrations applied after `name` (later features add their own). */
  const undoAfter = (name: string) => undoMigrationsAfter(ds, name);
  const jobsOptions = async (): Promise<string[]> =>
    (await ds.query(`SELECT reloptions FROM pg_class WHERE relname = 'webhook_jobs'`))[0].reloptions ?? [];
  const eventIdIndexes = async (): Promise<string[]> =>
    (
      await ds.query(
        `SELECT indexname, indexdef FROM pg_indexes WHERE indexname LIKE 'IDX_webhook_%_event_id' ORDER BY 1`,
      )
    ).map(
      (r: { indexname: string; indexdef: string }) =>
        `${r.indexname}: ${r.indexdef.replace(/^.* USING /, '')}`,
    );

  it('sets the queue autovacuum settings and the event_id indexes, reverts each cleanly and applies again', async () => {
    const applied = await runMigrations(ds);
    const first = applied.indexOf('WebhookJobsQueueVacuum1764300000000');
    // The schema as these migrations leave it (later ones have their own spec files).
    await undoAfter('RetentionIndexes1764300100000');
    expect(applied.slice(first, first + 2)).toEqual([
      'WebhookJobsQueueVacuum1764300000000',
      'RetentionIndexes1764300100000',
    ]);
    await undoMigrationsAfter(ds, 'RetentionIndexes1764300100000');
    // The fillfactor of an earlier migration stays.
    await expect(jobsOptions()).resolves.toEqual(['fillfactor=50', ...QUEUE_VACUUM]);
    await expect(eventIdIndexes()).resolves.toEqual([
      'IDX_webhook_deliveries_event_id: btree (event_id)',
      'IDX_webhook_jobs_event_id: btree (event_id)',
    ]);

    await ds.undoLastMigration({ transaction: 'each' });
    await expect(eventIdIndexes()).resolves.toEqual([]);
    await expect(jobsOptions()).resolves.toEqual(['fillfactor=50', ...QUEUE_VACUUM]);
    await ds.undoLastMigration({ transaction: 'each' });
    await expect(jobsOptions()).resolves.toEqual(['fillfactor=50']);

    await expect(runMigrations(ds)).resolves.toEqual(applied.slice(first));
    await undoAfter('RetentionIndexes1764300100000');
    await expect(jobsOptions()).resolves.toEqual(['fillfactor=50', ...QUEUE_VACUUM]);
    await expect(eventIdIndexes()).resolves.toHaveLength(2);
  });
});
