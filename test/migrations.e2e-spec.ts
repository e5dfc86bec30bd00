import { randomBytes } from 'node:crypto';
import { DataSource } from 'typeorm';
import { migrations } from '../migrations/index';
import { dataSourceOptions } from '../src/database/data-source.options';
import { runMigrations } from '../src/database/migrate';
import { RECEIVER_HOST_EXPRESSION } from '../src/subscriptions/subscription.entity';
import {
  adminQuery,
  ADMIN_URL_ENV,
  RUN_PREFIX_ENV,
  undoMigrationsAfter,
  withDatabase,
} from './support/database';

const SUBSCRIPTION_INDEXES = [
  'IDX_subscriptions_name_trgm',
  'IDX_subscriptions_tenant_active_id',
  'IDX_subscriptions_tenant_created_at',
  'IDX_subscriptions_tenant_id',
  'IDX_subscriptions_tenant_name',
  'IDX_subscriptions_tenant_updated_at',
  'PK_subscriptions',
];

/** An empty database (from template1, not the migrated test template), dropped afterwards. */
async function withEmptyDatabase(run: (url: string) => Promise<void>): Promise<void> {
  // The run prefix: global teardown drops it too if this test dies half-way.
  const name = `${process.env[RUN_PREFIX_ENV]}_mig_${randomBytes(4).toString('hex')}`;
  await adminQuery(`CREATE DATABASE "${name}"`);
  try {
    await run(withDatabase(process.env[ADMIN_URL_ENV]!, name));
  } finally {
    await adminQuery(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
  }
}

async function withDataSource<T>(
  url: string,
  only: Array<(typeof migrations)[number]> | undefined,
  run: (ds: DataSource) => Promise<T>,
): Promise<T> {
  const options = dataSourceOptions(url, 2);
  const ds = new DataSource(only ? { ...options, migrations: only } : options);
  await ds.initialize();
  try {
    return await run(ds);
  } finally {
    await ds.destroy();
  }
}

const tables = async (ds: DataSource): Promise<string[]> =>
  (
    await ds.query<Array<{ table_name: string }>>(
      `SELECT table_name FROM information_schema.tables WHERE table_schema = 'public' ORDER BY table_name`,
    )
  ).map((r) => r.table_name);

/** Migration SubscriptionHealth. */
const HEALTH_COLUMNS = [
  ...['last_attempt_at', 'last_success_at', 'failing_since'].map((column_name) => ({
    column_name,
    data_type: 'timestamp with time zone',
    is_nullable: 'YES',
    length: null,
  })),
  { column_name: 'consecutive_failures', data_type: 'integer', is_nullable: 'NO', length: null },
];

/** `allMigrations`: every later migration applied too (false: CreateSubscriptions alone). */
async function expectSubscriptionsSchema(ds: DataSource, allMigrations = true): Promise<void> {
  const columns = await ds.query(
    `SELECT column_name, data_type, is_nullable, character_maximum_length AS length
       FROM information_schema.columns WHERE table_name = 'subscriptions' ORDER BY ordinal_position`,
  );
  expect(columns).toEqual([
    { column_name: 'id', data_type: 'integer', is_nullable: 'NO', length: null },
    { column_name: 'tenant', data_type: 'character varying', is_nullable: 'NO', length: 255 },
    { column_name: 'active', data_type: 'boolean', is_nullable: 'NO', length: null },
    { column_name: 'name', data_type: 'character varying', is_nullable: 'NO', length: 255 },
    { column_name: 'url', data_type: 'character varying', is_nullable: 'NO', length: 255 },
    { column_name: 'description', data_type: 'character varying', is_nullable: 'YES', length: 1000 },
    { column_name: 'events', data_type: 'ARRAY', is_nullable: 'NO', length: null },
    { column_name: 'header_name', data_type: 'character varying', is_nullable: 'YES', length: 255 },
    { column_name: 'header_value_encrypted', data_type: 'text', is_nullable: 'YES', length: null },
    { column_name: 'created_at', data_type: 'timestamp with time zone', is_nullable: 'NO', length: null },
    { column_name: 'updated_at', data_type: 'timestamp with time zone', is_nullable: 'NO', length: null },
    ...(allMigrations
      ? [
          { column_name: 'signing_secret_encrypted', data_type: 'text', is_nullable: 'YES', length: null },
          {
            column_name: 'previous_signing_secret_encrypted',
            data_type: 'text',
            is_nullable: 'YES',
            length: null,
          },
          {
            column_name: 'previous_signing_secret_until',
            data_type: 'timestamp with time zone',
            is_nullable: 'YES',
            length: null,
          },
          { column_name: 'receiver_host', data_type: 'text', is_nullable: 'YES', length: null },
          ...HEALTH_COLUMNS,
          {
            column_name: 'max_deliveries_per_second',
            data_type: 'integer',
            is_nullable: 'YES',
            length: null,
          },
        ]
      : []),
  ]);
  const indexes = await ds.query<Array<{ indexname: string; indexdef: string }>>(
    `SELECT indexname, indexdef FROM pg_indexes WHERE tablename = 'subscriptions' ORDER BY indexname`,
  );
  expect(indexes.map((i) => i.indexname)).toEqual(SUBSCRIPTION_INDEXES);
  const trgm = indexes.find((i) => i.indexname === 'IDX_subscriptions_name_trgm')!.indexdef;
  expect(trgm).toContain('USING gin (lower((name)::text) gin_trgm_ops)');
  const constraints = await ds.query<Array<{ conname: string }>>(
    `SELECT conname FROM pg_constraint WHERE conrelid = 'subscriptions'::regclass ORDER BY conname`,
  );
  expect(constraints.map((c) => c.conname)).toEqual(
    expect.arrayContaining([
      'CHK_subscriptions_events',
      'CHK_subscriptions_header_value_needs_name',
      'PK_subscriptions',
    ]),
  );
  // The table works: defaults fill in, and the checks hold.
  const [row] = await ds.query(
    `INSERT INTO subscriptions (tenant, name, url, events)
     VALUES ('t', 'n', 'https://r.example.com/', ARRAY['LICENCE_CREATED_SUCCESS']::varchar(64)[])
     RETURNING id, active, created_at`,
  );
  expect(row).toMatchObject({ id: expect.any(Number), active: true, created_at: expect.any(Date) });
  if (allMigrations) {
    // receiver_host follows the URL: the host[:port] the admission policy groups by, lower-cased.
    const host = async () =>
      (
        (await ds.query(`SELECT receiver_host FROM subscriptions WHERE id = $1`, [row.id])) as Array<{
          receiver_host: string;
        }>
      )[0].receiver_host;
    expect(await host()).toBe('r.example.com');
    await ds.query(`UPDATE subscriptions SET url = 'https://Hooks.Example.COM:8443/a?b#c' WHERE id = $1`, [
      row.id,
    ]);
    expect(await host()).toBe('hooks.example.com:8443');
    await ds.query(`UPDATE subscriptions SET url = 'https://[2001:db8::1]:9443/x' WHERE id = $1`, [row.id]);
    expect(await host()).toBe('[2001:db8::1]:9443');
  }
  await expect(
    ds.query(`INSERT INTO subscriptions (tenant, name, url, events) VALUES ('t', 'n', 'u', '{}')`),
  ).rejects.toThrow(/CHK_subscriptions_events/);
  await expect(
    ds.query(`INSERT INTO subscriptions (tenant, name, url, events) VALUES ('t', 'n', 'u', '{NOPE}')`),
  ).rejects.toThrow(/CHK_subscriptions_events/);
  await expect(
    ds.query(
      `INSERT INTO subscriptions (tenant, name, url, events, header_value_encrypted)
       VALUES ('t', 'n', 'u', '{LICENCE_CREATED_FAILED}', 'v1.x')`,
    ),
  ).rejects.toThrow(/CHK_subscriptions_header_value_needs_name/);
}

describe('migrations', () => {
  it('run on an empty database, create subscriptions with its indexes, and a second run does nothing', async () => {
    await withEmptyDatabase(async (url) => {
      await withDataSource(url, undefined, async (ds) => {
        const applied = await runMigrations(ds);
        expect(applied).toEqual(migrations.map((m) => m.name));
        expect(applied).toContain('CreateSubscriptions1763700100000');
        expect(await tables(ds)).toEqual(expect.arrayContaining(['migrations', 'subscriptions', 'users']));
        await expectSubscriptionsSchema(ds);
        await expect(runMigrations(ds)).resolves.toEqual([]);
      });
    });
  });

  it('run on a database holding only the users migration, keeping its rows', async () => {
    await withEmptyDatabase(async (url) => {
      await withDataSource(url, [migrations[0]], async (ds) => {
        await expect(runMigrations(ds)).resolves.toEqual(['CreateUsers1763700000000']);
        expect(await tables(ds)).toEqual(['migrations', 'users']);
        await ds.query(
          `INSERT INTO users (email, password_hash, role, tenant, partner_id, partner_name, user_name)
           VALUES ('a@example.com', 'x', 'ROLE_PARTNER', 't', 1, 'p', 'u')`,
        );
      });
      await withDataSource(url, undefined, async (ds) => {
        const applied = await runMigrations(ds);
        expect(applied).toEqual(migrations.slice(1).map((m) => m.name));
        expect(applied[0]).toBe('CreateSubscriptions1763700100000');
        await expectSubscriptionsSchema(ds);
        await expect(ds.query(`SELECT email FROM users`)).resolves.toEqual([{ email: 'a@example.com' }]);
      });
    });
  });

  it('reverts CreateSubscriptions, leaving users in place', async () => {
    await withEmptyDatabase(async (url) => {
      await withDataSource(url, migrations.slice(0, 2), async (ds) => {
        await runMigrations(ds);
        expect(await tables(ds)).toEqual(['migrations', 'subscriptions', 'users']);
        await ds.undoLastMigration({ transaction: 'each' });
        expect(await tables(ds)).toEqual(['migrations', 'users']);
        await expect(ds.query(`SELECT name FROM migrations`)).resolves.toEqual([
          { name: 'CreateUsers1763700000000' },
        ]);
        // And applies again after the revert.
        await expect(runMigrations(ds)).resolves.toEqual(['CreateSubscriptions1763700100000']);
        await expectSubscriptionsSchema(ds, false);
      });
    });
  });

  it("TypeormMetadata makes TypeORM's table with receiver_host's expression, and reverts", async () => {
    const expression = `SELECT "value" FROM typeorm_metadata WHERE "type" = 'GENERATED_COLUMN'
      AND "database" = current_database() AND "schema" = 'public' AND "table" = 'subscriptions'
      AND "name" = 'receiver_host'`;
    await withEmptyDatabase(async (url) => {
      // Without entities, as migration:run may be: nothing but the migration makes the table.
      await withDataSource(url, undefined, async (ds) => {
        await runMigrations(ds);
        await expect(ds.query(expression)).resolves.toEqual([{ value: RECEIVER_HOST_EXPRESSION }]);
        await undoMigrationsAfter(ds, 'TypeormMetadata1764800300000');
        await ds.undoLastMigration({ transaction: 'each' });
        expect(await tables(ds)).not.toContain('typeorm_metadata');
        expect((await runMigrations(ds))[0]).toBe('TypeormMetadata1764800300000');
        await expect(ds.query(expression)).resolves.toEqual([{ value: RECEIVER_HOST_EXPRESSION }]);
      });
    });
  });
});
