import { Injectable, Logger, OnApplicationShutdown } from '@nestjs/common';
import type { PoolClient } from 'pg';
import { DeliveryStatus } from '../common/reference/enums';
import { OwnPool, PLANNED_ONCE_SESSION, Postgres } from '../database/postgres';
import { Completion, completionStatement } from './completion.statement';
import { WebhookJobsRepository } from './webhook-jobs.repository';

/** Completions are written together: when this many are waiting, or FLUSH_DELAY_MS after the first. */
const FLUSH_MAX = 200;
const FLUSH_DELAY_MS = 5;
const RETRY_DELAY_MS = 1000;
/** The record of an attempt whose own outcome PostgreSQL refused (contract section 8, "One bad record"). */
export const UNRECORDABLE_OUTCOME = 'delivery outcome could not be recorded';

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/**
 * PostgreSQL refused what was written, not the connection: a data exception (class 22: a NUL, an
 * invalid value), an integrity violation (23), a program limit (54: a value too big) or a trigger's
 * RAISE (P0001). Writing it again as it is fails again; anything else (the database unreachable,
 * shutting down, a lock timeout) is worth retrying.
 */
function refusedByDatabase(error: unknown): boolean {
  const code = (error as { code?: unknown }).code;
  if (typeof code !== 'string' || code.length !== 5) return false;
  return ['22', '23', '54'].includes(code.slice(0, 2)) || code === 'P0001';
}

/** The same attempt without what the receiver sent back: only values of the service's own. */
function genericFailure(completion: Completion): Completion {
  return {
    ...completion,
    status: DeliveryStatus.FAILED,
    httpStatusCode: null,
    errorMessage: UNRECORDABLE_OUTCOME,
    responseBody: null,
  };
}

/**
 * Finishes delivered jobs in batches: each batch records their attempts, deletes their jobs and
 * updates their subscriptions' health in one statement (completion.statement.ts), retried while the database is
 * unreachable (an outage only delays it). A batch PostgreSQL refuses is split until the refused
 * records stand alone; each of those is written as a generic FAILED record, or its job dropped.
 *
 * Batches are written one at a time, on a connection of the writer's own in a PLANNED_ONCE_SESSION:
 * on the shared pool PostgreSQL planned the statement again for most small batches (a custom plan
 * looks cheaper than the generic one for a few records), and a generic plan made while the outbox
 * was nearly empty could read webhook_jobs whole to delete a batch's jobs once it has grown.
 */
@Injectable()
export class CompletionWriter implements OnApplicationShutdown {
  private readonly logger = new Logger('CompletionWriter');
  private pending: Completion[] = [];
  /** Jobs delivered here whose record is not written yet (waiting, or being written). */
  private readonly unrecorded = new Set<string>();
  private timer: NodeJS.Timeout | undefined;
  private flushing: Promise<void> | undefined;
  /** Shutdown: a write that fails is not retried; whatever is left stays unrecorded. */
  private finishing = false;
  /** The connection of the statement running now: closed if shutdown stops waiting for it. */
  private connection: PoolClient | undefined;
  /** A pool of one: reconnects after an outage, and a connection lost while idle is no error. */
  private readonly pool: OwnPool;

  constructor(
    postgres: Postgres,
    private readonly jobs: WebhookJobsRepository,
  ) {
    this.pool = postgres.ownPool(1, PLANNED_ONCE_SESSION);
  }

  /** After the worker's drain (onModuleDestroy), which writes what it can through `finish`. */
  async onApplicationShutdown(): Promise<void> {
    await this.pool.end();
  }

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

  /** Writes waiting completions; one flush at a time. Resolves when nothing is left (or at shutdown, on a failure). */
  flush(): Promise<void> {
    clearTimeout(this.timer);
    this.timer = undefined;
    this.flushing ??= this.flushLoop().finally(() => (this.flushing = undefined));
    return this.flushing;
  }

  /**
   * Shutdown: writes what is waiting, with one try per batch, for at most `timeoutMs` (the database
   * may hang). Returns how many records stay unwritten: their jobs stay in the outbox, released by
   * the worker or at the end of their lease, and are delivered again (contract section 8).
   */
  async finish(timeoutMs: number): Promise<number> {
    this.finishing = true;
    let timer: NodeJS.Timeout | undefined;
    const timedOut = new Promise<void>((resolve) => (timer = setTimeout(resolve, timeoutMs)));
    await Promise.race([this.flush(), timedOut]);
    clearTimeout(timer);
    this.abandonStatement();
    return this.unrecorded.size;
  }

  private async flushLoop(): Promise<void> {
    let failures = 0;
    while (this.pending.length > 0) {
      const batch = this.pending.splice(0, FLUSH_MAX);
      const unwritten = await this.writeSettingAside(batch);
      if (unwritten === undefined) {
        if (failures >= 3) this.logger.log(`delivery records written again after ${failures} failures`);
        failures = 0;
        continue;
      }
      this.pending.unshift(...unwritten.batch);
      failures++;
      // Once per outage, not once a second.
      if (failures === 1 || failures === 3) {
        this.logger.error(
          { err: unwritten.error, count: unwritten.batch.length },
          'writing webhook delivery records failed; retrying',
        );
      }
      if (this.finishing) return;
      await sleep(RETRY_DELAY_MS);
    }
  }

  /**
   * Writes `batch` in one statement; if PostgreSQL refuses it, each half alone, down to single
   * records (setAside). Returns what is left unwritten when the database fails otherwise.
   */
  private async writeSettingAside(
    batch: Completion[],
  ): Promise<{ batch: Completion[]; error: unknown } | undefined> {
    const parts = [batch];
    for (let part = parts.pop(); part; part = parts.pop()) {
      try {
        await this.write(part);
        this.recorded(part);
      } catch (error) {
        if (!refusedByDatabase(error)) return { batch: [...part, ...parts.reverse().flat()], error };
        if (part.length === 1) {
          const left = await this.setAside(part[0], error);
          if (left) return { batch: [...left.batch, ...parts.reverse().flat()], error: left.error };
          continue;
        }
        const half = Math.ceil(part.length / 2);
        parts.push(part.slice(half), part.slice(0, half)); // the first half is written first
      }
    }
    return undefined;
  }

  /**
   * One completion PostgreSQL refused: written as a generic FAILED record; if that is refused too,
   * its job is dropped without a record; either way logged. Never retried as it is.
   */
  private async setAside(
    completion: Completion,
    refusal: unknown,
  ): Promise<{ batch: Completion[]; error: unknown } | undefined> {
    const { jobId, subscriptionId, eventId } = completion;
    const about = { jobId, subscriptionId, eventId, code: (refusal as { code?: string }).code };
    try {
      await this.write([genericFailure(completion)]);
      this.logger.error(
        about,
        'delivery record refused by the database; recorded as FAILED without its answer',
      );
    } catch (error) {
      if (!refusedByDatabase(error)) return { batch: [completion], error };
      await this.drop(completion, about);
    }
    this.recorded([completion]);
    return undefined;
  }

  /** The last resort for a job whose every record is refused: out of the outbox, so never sent again. */
  private async drop(completion: Completion, about: Record<string, unknown>): Promise<void> {
    try {
      await this.jobs.dropFinished([completion.jobId]);
      this.logger.error(about, 'delivery record refused by the database; job dropped without a record');
    } catch (error) {
      // Its lease runs out, and it is delivered again.
      this.logger.error({ ...about, err: error }, 'delivery record refused and its job could not be dropped');
    }
  }

  private recorded(batch: Completion[]): void {
    for (const c of batch) this.unrecorded.delete(c.jobId);
  }

  /**
   * One auto-committed statement (completionStatement: the records, the jobs' delete, the health)
   * on the writer's own connection: a named statement, parsed and planned once per connection.
   */
  private async write(batch: Completion[]): Promise<void> {
    const client = await this.pool.connect();
    client.on('error', this.ignoreLostConnection);
    this.connection = client;
    try {
      await client.query(completionStatement(batch));
    } catch (error) {
      // Not given back to the pool: it may be dead (an outage).
      this.release(client, error instanceof Error ? error : new Error(String(error)));
      throw error;
    }
    this.release(client);
  }

  /**
   * While checked out, the pool no longer listens for the client's errors: a connection lost while
   * the statement runs (the server shutting down) would be an unhandled 'error' that ends the
   * process. The statement fails on its own, so the error needs nothing more than a listener.
   */
  private readonly ignoreLostConnection = () => undefined;

  private release(client: PoolClient, error?: Error): void {
    if (this.connection !== client) return; // closed by abandonStatement already
    this.connection = undefined;
    if (!error) client.off('error', this.ignoreLostConnection);
    client.release(error);
  }

  /**
   * Shutdown stops waiting for a statement (a locked table, a database that does not answer): its
   * connection is closed, so the pool can end; the statement fails, or commits before it notices.
   */
  private abandonStatement(): void {
    const client = this.connection;
    if (client) this.release(client, new Error('shutdown: delivery records not written in time'));
  }
}
