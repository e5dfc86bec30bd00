import type { DataSource } from 'typeorm';
import { runMigrations } from '../src/database/migrate';
import { migrations } from '../migrations';
import { createEmptyDatabase, undoMigrationsAfter } from './support/database';

const MIGRATION = 'SubscriptionSigningSecrets1764400100000';
/** The migration just before it, whichever that is once other features add theirs. */
const BEFORE = migrations[migrations.findIndex((m) => m.name === MIGRATION) - 1].name;
const COLUMNS = [
  'previous_signing_secret_encrypted',
  'previous_signing_secret_until',
  'signing_secret_encrypted',
];

describe('migration SubscriptionSigningSecrets', () => {
  let ds: DataSource;
  let drop: () => Promise<void>;

  beforeAll(async () => {
    ({ ds, drop } = await createEmptyDatabase('sign'));
  });
  afterAll(async () => {
    await drop?.();
  });

  const columns = async (): Promise<string[]> =>
    (
      await ds.query(
        `SELECT column_name FROM information_schema.columns
         WHERE table_name = 'subscriptions' AND column_name LIKE '%signing_secret%' ORDER BY 1`,
      )
    ).map((r: { column_name: string }) => r.column_name);

  it('adds the secret columns to existing rows (empty), pairs the previous secret with its end, reverts and applies again', async () => {
    await runMigrations(ds);
    await expect(columns()).resolves.toEqual(COLUMNS);
    await undoMigrationsAfter(ds, BEFORE);
    await expect(columns()).resolves.toEqual([]);
    // A subscription from before: it keeps its data and has no secret until the service gives it one.
    await ds.query(
      `INSERT INTO subscriptions (tenant, name, url, events) VALUES ('t', 'old', 'https://a.example', '{LICENCE_CREATED_SUCCESS}')`,
    );
    const applied = await runMigrations(ds);
    expect(applied).toContain(MIGRATION);
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
    await undoMigrationsAfter(ds, BEFORE);
    await expect(columns()).resolves.toEqual([]);
    await expect(ds.query(`SELECT name FROM subscriptions`)).resolves.toEqual([{ name: 'old' }]);
  });
});
