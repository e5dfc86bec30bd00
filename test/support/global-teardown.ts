import { rm } from 'node:fs/promises';
import pg from 'pg';
import { removeOrphanClusters, type RunningDatabase } from '../../src/database/embedded';
import { ADMIN_URL_ENV, RUN_PREFIX_ENV, SERVER_URL_ENV } from './database';
import { runBuildDir } from './service-process';

export default async function globalTeardown(): Promise<void> {
  const admin = new pg.Client({ connectionString: process.env[ADMIN_URL_ENV] });
  await admin.connect();
  try {
    const rows = await admin.query('SELECT datname FROM pg_database WHERE datname LIKE $1', [
      `${process.env[RUN_PREFIX_ENV]}_%`,
    ]);
    for (const { datname } of rows.rows)
      await admin.query(`DROP DATABASE IF EXISTS "${datname}" WITH (FORCE)`);
  } finally {
    await admin.end();
  }
  // The service as the e2e files that run it as a process built it (buildService).
  await rm(runBuildDir(process.env[RUN_PREFIX_ENV]!), { recursive: true, force: true });
  const embedded = (globalThis as Record<string, unknown>).__PIS_TEST_DB__ as
    { db: RunningDatabase; dataDir: string } | undefined;
  if (embedded) {
    await embedded.db.stop();
    await rm(embedded.dataDir, { recursive: true, force: true });
  }
  // As root, clusters of DATA_DIRs the postgres user could not reach live outside them: those of
  // every folder deleted by now (this run's test services, earlier killed runs) go too.
  await removeOrphanClusters();
  if (process.env[SERVER_URL_ENV]) process.env.DATABASE_URL = process.env[SERVER_URL_ENV];
}
