import { Injectable, OnApplicationShutdown } from '@nestjs/common';
import { OwnPool, PLANNED_ONCE_SESSION, Postgres } from '../database/postgres';

/**
 * The claim's own connection: a pool of one (claims never overlap within an instance), which
 * connects again after an outage, in a PLANNED_ONCE_SESSION. On the shared pool PostgreSQL planned
 * the claim again on every call: its arrays and window size make the generic plan's estimate dearer
 * than each custom plan's, and planning took about a quarter of the claim's time. One plan fits
 * every size of the outbox (the primary key walked in order, each row's subscription and event by
 * primary key), but planned while webhook_jobs is empty it would read the table whole and sort it:
 * with sequential scans costed out, the plan made then is the one the custom plans choose for a
 * large outbox.
 */
@Injectable()
export class ClaimConnection implements OnApplicationShutdown {
  // A lost connection (a database restart) is no error: the next claim connects again.
  private readonly pool: OwnPool;

  constructor(postgres: Postgres) {
    this.pool = postgres.ownPool(1, PLANNED_ONCE_SESSION);
  }

  /** Runs the named statement `name`; failures are TypeORM's QueryFailedError, as on the shared pool. */
  query<T>(name: string, text: string, values: unknown[]): Promise<T[]> {
    return this.pool.query<T>(name, text, values);
  }

  async onApplicationShutdown(): Promise<void> {
    await this.pool.end();
  }
}
