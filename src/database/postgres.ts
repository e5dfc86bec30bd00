import { Injectable } from '@nestjs/common';
import pg from 'pg';
import { DataSource, QueryFailedError } from 'typeorm';
import type { PostgresDataSourceOptions } from 'typeorm/driver/postgres/PostgresDataSourceOptions.js';
import type { PostgresDriver } from 'typeorm/driver/postgres/PostgresDriver';
import { NamedStatements } from '../common/paging/named-statements';

/** What a pool is doing now (the metrics' gauges). */
export interface PoolUsage {
  connections: number;
  idle: number;
  waiting: number;
}

/** A pool of the caller's own (the claim's, the completions'), with session settings of its own. */
export interface OwnPool {
  /** Runs `text` as the named prepared statement `name`; fails as Postgres.query does. */
  query<T>(name: string, text: string, values: unknown[]): Promise<T[]>;
  /** A client of this pool, for a caller that must be able to close it; the caller releases it. */
  connect(): Promise<pg.PoolClient>;
  end(): Promise<void>;
}

/**
 * Session settings for a connection that runs a few fixed statements over tables whose size swings
 * (the outbox: empty, then 50,000 jobs): each named statement planned once, generically
 * (`plan_cache_mode = force_generic_plan`: with the automatic choice PostgreSQL plans statements
 * over arrays again on many calls, as a small array makes a custom plan look cheaper than the
 * generic one), and with sequential scans costed out (`enable_seqscan = off`, a penalty, not a ban),
 * so a plan made while a table is nearly empty still walks its indexes once the table has grown.
 */
export const PLANNED_ONCE_SESSION = '-c plan_cache_mode=force_generic_plan -c enable_seqscan=off';

/** Runs one statement on `pool`; failures are TypeORM's QueryFailedError, as from `dataSource.query`. */
async function poolQuery<T>(
  pool: pg.Pool,
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

/**
 * The one way to PostgreSQL outside TypeORM's repositories and query runners: TypeORM's own pg pool
 * (named prepared statements, a pooled client) and connections of their own built from the same
 * options (the claim's pool, the LISTEN connection). Hot paths use it for fixed SQL texts parsed once
 * per connection (and planned once, when PostgreSQL settles on a generic plan), without a query
 * runner; failures are TypeORM's QueryFailedError, so the global filter maps them the same way.
 */
@Injectable()
export class Postgres {
  constructor(private readonly dataSource: DataSource) {}

  /**
   * Runs `text` on the shared pool as the named prepared statement `name` (each name always goes
   * with the same text); without a name it runs unnamed, as `dataSource.query` would.
   */
  query<T>(name: string | undefined, text: string, values: unknown[]): Promise<T[]> {
    return poolQuery<T>(this.pool, name, text, values);
  }

  /** A table's named statements, `<prefix>_<hash>` each (NamedStatements), on the shared pool. */
  namedStatements(prefix: string): NamedStatements {
    return new NamedStatements(prefix, (name, text, values) => this.query(name, text, values));
  }

  /** The shared pool's connections; undefined before TypeORM has connected or after it closed. */
  poolUsage(): PoolUsage | undefined {
    const pool = (this.dataSource.driver as PostgresDriver).master as pg.Pool | undefined;
    if (!pool) return undefined;
    return { connections: pool.totalCount, idle: pool.idleCount, waiting: pool.waitingCount };
  }

  /**
   * A pool of its own with session `options` (`-c name=value …`): it connects again after an
   * outage, and an idle connection lost (a database restart) is no error.
   */
  ownPool(max: number, options?: string): OwnPool {
    const pool = new pg.Pool({ ...this.connectionOptions(), max, options });
    pool.on('error', () => undefined);
    return {
      query: (name, text, values) => poolQuery(pool, name, text, values),
      connect: () => pool.connect(),
      end: () => pool.end(),
    };
  }

  /** A connection of its own, outside every pool, not connected yet (LISTEN holds one for good). */
  dedicatedConnection(): pg.Client {
    return new pg.Client(this.connectionOptions());
  }

  /** The shared pool's connection settings: the same server, database and time-out everywhere. */
  private connectionOptions(): pg.ClientConfig {
    const { url, extra } = this.dataSource.options as PostgresDataSourceOptions;
    const { connectionTimeoutMillis } = (extra ?? {}) as pg.PoolConfig;
    return { connectionString: url, connectionTimeoutMillis };
  }

  private get pool(): pg.Pool {
    return (this.dataSource.driver as PostgresDriver).master as pg.Pool;
  }
}
