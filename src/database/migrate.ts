import type { DataSource } from 'typeorm';

// Any constant; the same one in every instance.
const MIGRATION_LOCK = 72_700_001;

/**
 * Runs pending migrations while holding a session advisory lock, so instances starting together
 * apply them once, one after the other.
 */
export async function runMigrations(dataSource: DataSource): Promise<string[]> {
  const runner = dataSource.createQueryRunner();
  await runner.connect();
  try {
    await runner.query('SELECT pg_advisory_lock($1)', [MIGRATION_LOCK]);
    const done = await dataSource.runMigrations({ transaction: 'each' });
    return done.map((m) => m.name);
  } finally {
    await runner.query('SELECT pg_advisory_unlock($1)', [MIGRATION_LOCK]).catch(() => undefined);
    await runner.release();
  }
}
