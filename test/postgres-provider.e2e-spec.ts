import { QueryFailedError } from 'typeorm';
import { Postgres } from '../src/database/postgres';
import { startTestApp, TestApp } from './support/test-app';

/**
 * database/postgres.ts, the one way past TypeORM: the shared pool, a table's named statements and
 * connections of their own all reach the app's database, and fail as TypeORM does.
 */
describe('Postgres (the provider)', () => {
  let t: TestApp;
  let postgres: Postgres;

  beforeAll(async () => {
    t = await startTestApp();
    postgres = t.app.get(Postgres);
  });

  afterAll(async () => {
    await t?.close();
  });

  const databaseOf = async (run: (sql: string) => Promise<Array<{ db: string }>>) =>
    (await run('SELECT current_database() AS db'))[0].db;

  it('runs statements on the shared pool, named or not', async () => {
    await expect(postgres.query('provider_test_add', 'SELECT $1::int + 1 AS n', [41])).resolves.toEqual([
      { n: 42 },
    ]);
    await expect(postgres.query(undefined, 'SELECT $1::int + 2 AS n', [40])).resolves.toEqual([{ n: 42 }]);
  });

  it("fails with TypeORM's QueryFailedError, carrying the driver's code", async () => {
    const failure = postgres.query(undefined, 'SELECT 1/0', []);
    await expect(failure).rejects.toBeInstanceOf(QueryFailedError);
    await expect(failure).rejects.toMatchObject({ driverError: { code: '22012' } });
  });

  it('gives a table its named statements on the shared pool', async () => {
    const statements = postgres.namedStatements('provider_test');
    await expect(statements.query('SELECT $1::int AS one', [1])).resolves.toEqual([{ one: 1 }]);
  });

  it("counts the shared pool's connections in its usage", async () => {
    await postgres.query(undefined, 'SELECT 1', []);
    expect(postgres.poolUsage()?.connections).toBeGreaterThanOrEqual(1);
  });

  it('builds connections of their own to the same database, with their session settings', async () => {
    const expected = await databaseOf((sql) => t.dataSource.query(sql));
    const own = postgres.ownPool(1, '-c enable_seqscan=off');
    try {
      await expect(databaseOf((sql) => own.query('provider_test_db', sql, []))).resolves.toBe(expected);
      await expect(own.query('provider_test_seqscan', 'SHOW enable_seqscan', [])).resolves.toEqual([
        { enable_seqscan: 'off' },
      ]);
      // One connection: the statements it ran by name stay prepared on it.
      const prepared = await own.query<{ name: string }>(
        'provider_test_prepared',
        'SELECT name FROM pg_prepared_statements',
        [],
      );
      expect(prepared.map((row) => row.name)).toEqual(
        expect.arrayContaining(['provider_test_db', 'provider_test_seqscan']),
      );
      // Its client, lent to a caller that may close it: the same session.
      const client = await own.connect();
      try {
        expect((await client.query('SHOW enable_seqscan')).rows).toEqual([{ enable_seqscan: 'off' }]);
      } finally {
        client.release();
      }
    } finally {
      await own.end();
    }
    const dedicated = postgres.dedicatedConnection();
    await dedicated.connect();
    try {
      await expect(databaseOf(async (sql) => (await dedicated.query(sql)).rows)).resolves.toBe(expected);
    } finally {
      await dedicated.end();
    }
  });
});
