import { Injectable, Logger } from '@nestjs/common';
import type { Pool } from 'pg';
import { DataSource } from 'typeorm';
import type { PostgresDriver } from 'typeorm/driver/postgres/PostgresDriver';
import { DeliveryAttempt, DeliveryRecords } from '../deliveries/delivery-records.repository';
import { WebhookJobsRepository } from './webhook-jobs.repository';

/** Completions are written together: when this many are waiting, or FLUSH_DELAY_MS after the first. */
const FLUSH_MAX = 200;
const FLUSH_DELAY_MS = 5;
const RETRY_DELAY_MS = 1000;

export interface Completion extends DeliveryAttempt {
  jobId: string;
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/**
 * Finishes delivered jobs in batches: each batch records their attempts (DeliveryRecords) and
 * deletes its jobs (WebhookJobsRepository) in one statement, retried until it commits (a database
 * outage only delays it).
 */
@Injectable()
export class CompletionWriter {
  private readonly logger = new Logger('CompletionWriter');
  private pending: Completion[] = [];
  /** Jobs delivered here whose record is not written yet (waiting, or being written). */
  private readonly unrecorded = new Set<string>();
  private timer: NodeJS.Timeout | undefined;
  private flushing: Promise<void> | undefined;

  constructor(
    private readonly dataSource: DataSource,
    private readonly jobs: WebhookJobsRepository,
    private readonly records: DeliveryRecords,
  ) {}

  /** Delivered here and not recorded yet: never sent again from this instance. */
  has(jobId: string): boolean {
    return this.unrecorded.has(jobId);
  }

  add(completion: Completion): void {
    this.pending.push(completion);
    this.unrecorded.add(completion.jobId);
    if (this.pending.length >= FLUSH_MAX) void this.flush();
    else this.timer ??= setTimeout(() => void this.flush(), FLUSH_DELAY_MS);
  }

  /** Writes waiting completions; one flush at a time. Resolves when nothing is left or `retries` ran out. */
  flush(retries = Infinity): Promise<void> {
    clearTimeout(this.timer);
    this.timer = undefined;
    this.flushing ??= this.flushLoop(retries).finally(() => (this.flushing = undefined));
    return this.flushing;
  }

  private async flushLoop(retries: number): Promise<void> {
    let failures = 0;
    while (this.pending.length > 0) {
      const batch = this.pending.splice(0, FLUSH_MAX);
      try {
        await this.write(batch);
        for (const c of batch) this.unrecorded.delete(c.jobId);
        if (failures >= 3) this.logger.log(`delivery records written again after ${failures} failures`);
        failures = 0;
      } catch (error) {
        this.pending.unshift(...batch);
        failures++;
        const code = (error as { code?: string }).code;
        if (code === '23503' && failures < 3) continue; // a subscription deleted meanwhile
        // Once per outage, not once a second.
        if (failures === 1 || failures === 3) {
          this.logger.error(
            { err: error, count: batch.length },
            'writing webhook delivery records failed; retrying',
          );
        }
        if (failures > retries) return;
        await sleep(RETRY_DELAY_MS);
      }
    }
  }

  /**
   * One auto-committed statement (the records, then the jobs' delete: DeliveryRecords,
   * WebhookJobsRepository) on a pool client of its own: a named statement, parsed once per connection.
   */
  private async write(batch: Completion[]): Promise<void> {
    const pool = (this.dataSource.driver as PostgresDriver).master as Pool;
    const client = await pool.connect();
    // While checked out, the pool no longer listens for the client's errors: a connection lost
    // while the statement runs (the server shutting down) would be an unhandled 'error' that ends
    // the process. The statement fails on its own, so the error needs nothing more than a listener.
    const lost = () => undefined;
    client.on('error', lost);
    try {
      const { text, values } = this.records.recordAttempts(
        batch,
        this.jobs.deleteFinished(batch.map((c) => c.jobId)),
      );
      await client.query({ name: 'webhook_complete', text, values });
      client.off('error', lost);
      client.release();
    } catch (error) {
      // Not given back to the pool: it may be dead (an outage).
      client.release(error instanceof Error ? error : new Error(String(error)));
      throw error;
    }
  }
}
