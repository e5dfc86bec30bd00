import { randomBytes } from 'node:crypto';
import { DataSource } from 'typeorm';
import { dataSourceOptions } from '../src/database/data-source.options';
import { runMigrations } from '../src/database/migrate';
import { entities } from '../src/entities';
import { RECEIVER_HOST_EXPRESSION } from '../src/subscriptions/subscription.entity';
import { adminQuery, ADMIN_URL_ENV, RUN_PREFIX_ENV, withDatabase } from './support/database';

/** PostgreSQL's own text of a generated column's expression, normalised as it stores it. */
async function generationExpression(ds: DataSource, table: string, column: string): Promise<string> {
  const [row] = await ds.query<Array<{ expression: string }>>(
    `SELECT generation_expression AS expression FROM information_schema.columns
     WHERE table_name = $1 AND column_name = $2`,
    [table, column],
  );
  return row.expression;
}

/**
 * The entities describe the migrated schema: on a database the migrations built from nothing,
 * TypeORM's schema builder (what `synchronize` or `migration:generate` would run) has nothing to
 * change. A column, type, nullability, default, key, named index or check added by a migration and
 * not to its entity (or the other way round) fails here.
 */
describe('entities and the migrated schema', () => {
  let ds: DataSource;
  let name: string;

  beforeAll(async () => {
    name = `${process.env[RUN_PREFIX_ENV]}_entities_${randomBytes(4).toString('hex')}`;
    await adminQuery(`CREATE DATABASE "${name}"`);
    ds = new DataSource(dataSourceOptions(withDatabase(process.env[ADMIN_URL_ENV]!, name), 2, entities));
    await ds.initialize();
    await runMigrations(ds);
  });

  afterAll(async () => {
    if (ds?.isInitialized) await ds.destroy();
    await adminQuery(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
  });

  it("declares receiver_host's expression as the migration made it", async () => {
    // A column made from the entity's expression, beside the migrated one: PostgreSQL normalises both.
    await ds.query(`CREATE TABLE entity_receiver_host (url varchar(255),
      receiver_host text GENERATED ALWAYS AS (${RECEIVER_HOST_EXPRESSION}) STORED)`);
    await expect(generationExpression(ds, 'subscriptions', 'receiver_host')).resolves.toBe(
      await generationExpression(ds, 'entity_receiver_host', 'receiver_host'),
    );
  });

  it('leaves TypeORM nothing to change after every migration', async () => {
    // TypeORM reads a generated column's expression only from its own typeorm_metadata table, which
    // migration TypeormMetadata fills with the entity's (checked against PostgreSQL's above).
    const { upQueries } = await ds.driver.createSchemaBuilder().log();
    expect(upQueries.map((q) => q.query)).toEqual([]);
  });

  it("holds the entity's expression in typeorm_metadata, as TypeORM would write it", async () => {
    await expect(
      ds.query(`SELECT "database" = current_database() AS here, "schema", "value" FROM typeorm_metadata
        WHERE "type" = 'GENERATED_COLUMN' AND "table" = 'subscriptions' AND "name" = 'receiver_host'`),
    ).resolves.toEqual([{ here: true, schema: 'public', value: RECEIVER_HOST_EXPRESSION }]);
  });
});
