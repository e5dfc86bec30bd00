import 'reflect-metadata';
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { DataSource } from 'typeorm';
import { dataSourceOptions } from '../../src/database/data-source.options';
import { startEmbeddedPostgres } from '../../src/database/embedded';
import { runMigrations } from '../../src/database/migrate';
import { ADMIN_URL_ENV, RUN_PREFIX_ENV, SERVER_URL_ENV, TEMPLATE_ENV, withDatabase } from './database';

/**
 * One database server for the whole run: DATABASE_URL's server when set (CI's second pass), else an
 * embedded PostgreSQL in a temporary folder. One template database with the real migrations applied;
 * each test file copies it (support/database.ts), so files never see each other's rows.
 */
export default async function globalSetup(): Promise<void> {
  const runPrefix = `pis_t${Date.now().toString(36)}${process.pid}`;
  let adminUrl: string;
  if (process.env.DATABASE_URL) {
    adminUrl = process.env.DATABASE_URL;
  } else {
    const dataDir = await mkdtemp(join(tmpdir(), 'pis-test-db-'));
    const db = await startEmbeddedPostgres({ dataDir });
    (globalThis as Record<string, unknown>).__PIS_TEST_DB__ = { db, dataDir };
    adminUrl = withDatabase(db.url, 'postgres');
  }
  const template = `${runPrefix}_template`;
  const admin = new pg.Client({ connectionString: adminUrl });
  await admin.connect();
  await admin.query(`CREATE DATABASE "${template}"`);
  await admin.end();

  const dataSource = new DataSource(dataSourceOptions(withDatabase(adminUrl, template), 2));
  await dataSource.initialize();
  await runMigrations(dataSource);
  await dataSource.destroy();

  // Inherited by the test workers, which start after this.
  process.env[ADMIN_URL_ENV] = adminUrl;
  process.env[TEMPLATE_ENV] = template;
  process.env[RUN_PREFIX_ENV] = runPrefix;
  // The app under test gets its own database from the helpers, never the server's default one.
  process.env[SERVER_URL_ENV] = process.env.DATABASE_URL ?? '';
  delete process.env.DATABASE_URL;
}
