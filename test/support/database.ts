import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { DataSource } from 'typeorm';
import { dataSourceOptions } from '../../src/database/data-source.options';
import { runMigrations } from '../../src/database/migrate';

/** Set by global-setup: the server's maintenance URL and the migrated template database's name. */
export const ADMIN_URL_ENV = 'PIS_TEST_ADMIN_URL';
export const TEMPLATE_ENV = 'PIS_TEST_TEMPLATE_DB';
export const RUN_PREFIX_ENV = 'PIS_TEST_RUN_PREFIX';
export const SERVER_URL_ENV = 'PIS_TEST_SERVER_DATABASE_URL';

export function withDatabase(url: string, database: string): string {
  const u = new URL(url);
  u.pathname = `/${database}`;
  return u.toString();
}

export async function adminQuery<T = unknown>(sql: string, params: unknown[] = []): Promise<T[]> {
  const client = new pg.Client({ connectionString: process.env[ADMIN_URL_ENV] });
  await client.connect();
  try {
    return (await client.query(sql, params)).rows as T[];
  } finally {
    await client.end();
  }
}

/** A fresh database for one test file, copied from the migrated template (about 30 ms). */
export async function createTestDatabase(): Promise<{ url: string; name: string }> {
  const name = `${process.env[RUN_PREFIX_ENV]}_${randomBytes(4).toString('hex')}`;
  const template = process.env[TEMPLATE_ENV];
  for (let attempt = 0; ; attempt++) {
    try {
      await adminQuery(`CREATE DATABASE "${name}" TEMPLATE "${template}"`);
      break;
    } catch (error) {
      // 55006: another CREATE DATABASE is copying the template right now.
      if ((error as { code?: string }).code !== '55006' || attempt > 50) throw error;
      await new Promise((r) => setTimeout(r, 20 + Math.random() * 50));
    }
  }
  return { url: withDatabase(process.env[ADMIN_URL_ENV]!, name), name };
}

export async function dropTestDatabase(name: string): Promise<void> {
  await adminQuery(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
}

/**
 * An empty database (not the migrated template) for a migration spec, with a DataSource on it;
 * `drop` closes and drops it. The run prefix lets global teardown drop it if the test dies half-way.
 */
export async function createEmptyDatabase(
  tag: string,
): Promise<{ ds: DataSource; url: string; drop: () => Promise<void> }> {
  const name = `${process.env[RUN_PREFIX_ENV]}_${tag}_${randomBytes(4).toString('hex')}`;
  await adminQuery(`CREATE DATABASE "${name}"`);
  const url = withDatabase(process.env[ADMIN_URL_ENV]!, name);
  const ds = new DataSource(dataSourceOptions(url, 2));
  await ds.initialize();
  return {
    ds,
    url,
    drop: async () => {
      if (ds.isInitialized) await ds.destroy();
      await dropTestDatabase(name);
    },
  };
}

/** Undoes the migrations applied after `name`, newest first (later features add their own). */
export async function undoMigrationsAfter(ds: DataSource, name: string): Promise<void> {
  const last = async () =>
    (await ds.query(`SELECT name FROM migrations ORDER BY id DESC LIMIT 1`))[0]?.name as string | undefined;
  while ((await last()) !== name) await ds.undoLastMigration({ transaction: 'each' });
}

/** A new database (createEmptyDatabase) migrated up to `name` and no further: later migrations' tests are their own. */
export async function createDatabaseAtMigration(tag: string, name: string) {
  const created = await createEmptyDatabase(tag);
  await runMigrations(created.ds);
  await undoMigrationsAfter(created.ds, name);
  return created;
}
