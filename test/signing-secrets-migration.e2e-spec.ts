import { randomBytes } from 'node:crypto';
import { DataSource } from 'typeorm';
import { dataSourceOptions } from '../src/database/data-source.options';
import { runMigrations } from '../src/database/migrate';
import { adminQuery, ADMIN_URL_ENV, RUN_PREFIX_ENV, withDatabase } from './support/database';

const MIGRATION = 'SubscriptionSigningSecrets1764400100000';
const COLUMNS = [
  'previous_signing_secret_encrypted',
  'previous_signing_secret_until',
  'signing_secret_encrypted',
];

describe('migration SubscriptionSigningSecrets', () => {
  let name: string;
  let ds: DataSource;

  beforeAll(async () => {
    // An empty database (not the migrated template), dropped afterwards.
    name = `${process.env[RUN_PREFIX_ENV]}_sign_${randomBytes(4).toString('hex')}`;
    await adminQuery(`CREATE DATABASE "${name}"`);
    ds = new DataSource(dataSourceOptions(withDatabase(process.env[ADMIN_URL_ENV]!, name), 2));
    await ds.initialize();
  });
  afterAll(async () => {
    await ds?.destroy();
    await adminQuery(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
  });

  const columns = async (): Promise<string[]> =>
    (
      await ds.query(
        `SELECT column_name FROM information_schema.columns
         WHERE table_name = 'subscriptions' AND column_name LIKE '%signing_secret%' ORDER BY 1`,
      )
    ).map((r: { column_name: string }) => r.column_name);
  const undoThrough = async (migration: string) => {
    const last = async () =>
      (await ds.query(`SELECT name FROM migrations ORDER BY id DESC LIMIT 1`))[0]?.name as string;
    for (let undone = ''; undone !== migration;) {
      undone = await last();
      await ds.undoLastMigration({ transaction: 'each' });
    }
  };

  it('adds the secret columns to existing rows (empty), pairs the previous secret with its end, reverts and applies again', async () => {
    await runMigrations(ds);
    await expect(columns()).resolves.toEqual(COLUMNS);
    await undoThrough(MIGRATION);
    await expect(columns()).resolves.toEqual([]);
    // A subscription from before: it keeps its data and has no secret until the service gives it one.
    await ds.query(
      `INSERT INTO subscriptions (tenant, name, url, events) VALUES ('t', 'old', 'https://a.example', '{LICENCE_CREATED_SUCCESS}')`,
    );
    const applied = await runMigrations(ds);
    expect(applied[0]).toBe(MIGRATION);
    await expect(columns()).resolves.toEqual(COLUMNS);
    await expect(ds.query(`SELECT name, signing_secret_encrypted FROM subscriptions`)).resolves.toEqual([
      { name: 'old', signing_secret_encrypted: null },
    ]);
    await expect(
      ds.query(`UPDATE subscriptions SET previous_signing_secret_encrypted = 'v1.x'`),
    ).rejects.toThrow(/CHK_subscriptions_previous_signing_secret/);
    await expect(ds.query(`UPDATE subscriptions SET previous_signing_secret_until = now()`)).rejects.toThrow(
      /CHK_subscriptions_previous_signing_secret/,
    );
    await ds.query(
      `UPDATE subscriptions SET previous_signing_secret_encrypted = 'v1.x', previous_signing_secret_until = now()`,
    );
    await undoThrough(MIGRATION);
    await expect(columns()).resolves.toEqual([]);
    await expect(ds.query(`SELECT name FROM subscriptions`)).resolves.toEqual([{ name: 'old' }]);
  });
});
