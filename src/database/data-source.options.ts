import type { DataSourceOptions } from 'typeorm';
import { migrations } from '../../migrations/index';

/**
 * One options object for the app (TypeOrmModule) and the TypeORM CLI (ormconfig.ts). The entities
 * come from the caller (src/entities.ts): the database layer knows no feature.
 */
export function dataSourceOptions(
  url: string,
  poolSize = 10,
  entities: DataSourceOptions['entities'] = [],
): DataSourceOptions {
  return {
    type: 'postgres',
    url,
    entities,
    migrations,
    migrationsTableName: 'migrations',
    synchronize: false, // schema changes only through migrations
    migrationsRun: false, // run by runMigrations() under an advisory lock
    // Off: TypeORM's logger prints failed queries with their parameters (password hashes, sealed
    // header values) to the console, outside the JSON log; the exception filter logs errors instead.
    logging: false,
    extra: { max: poolSize, connectionTimeoutMillis: 10_000 },
  };
}
