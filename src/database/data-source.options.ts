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
    logging: ['error'],
    extra: { max: poolSize, connectionTimeoutMillis: 10_000 },
  };
}
