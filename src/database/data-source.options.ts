import type { DataSourceOptions } from 'typeorm';
import { migrations } from '../../migrations/index';
import { entities } from './entities';

/** One options object for the app (TypeOrmModule) and the TypeORM CLI (ormconfig.ts). */
export function dataSourceOptions(url: string, poolSize = 10): DataSourceOptions {
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
