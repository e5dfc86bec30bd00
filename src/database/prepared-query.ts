import type { Pool } from 'pg';
import { DataSource, QueryFailedError } from 'typeorm';
import type { PostgresDriver } from 'typeorm/driver/postgres/PostgresDriver';

/**
 * Runs `text` on TypeORM's connection pool as the named prepared statement `name`: parsed once per
 * connection (and planned once, when PostgreSQL settles on a generic plan), without a query runner.
 * For hot paths with fixed SQL texts; each name must always go with the same text. Without a name
 * the statement runs unnamed, as `dataSource.query` would. Failures are TypeORM's
 * QueryFailedError, as from `dataSource.query`, so the global filter maps them the same way.
 */
export function preparedQuery<T>(
  dataSource: DataSource,
  name: string | undefined,
  text: string,
  values: unknown[],
): Promise<T[]> {
  return poolQuery<T>((dataSource.driver as PostgresDriver).master as Pool, name, text, values);
}

/** preparedQuery on a pool of the caller's own (ClaimConnection's), failing the same way. */
export async function poolQuery<T>(
  pool: Pool,
  name: string | undefined,
  text: string,
  values: unknown[],
): Promise<T[]> {
  try {
    return (await pool.query({ name, text, values })).rows as T[];
  } catch (error) {
    throw new QueryFailedError(text, values, error as Error);
  }
}
