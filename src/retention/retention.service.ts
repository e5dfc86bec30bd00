import { Injectable, Logger, OnApplicationBootstrap, OnModuleDestroy } from '@nestjs/common';
import { ConfigService } from '@nestjs/config';
import { DataSource, QueryRunner } from 'typeorm';
import type { AppConfig } from '../config/configuration';
import type { RetentionStatement } from '../database/retention-batch';
import { DeliveryRecords } from '../deliveries/delivery-records.repository';
import { WebhookOutbox } from '../dispatcher';

/** The advisory lock held by the instance running retention; any constant, the same everywhere. */
export const RETENTION_LOCK = 72_700_002;
const DAY_MS = 86_400_000;
/** Rows per statement, and the pause between statements: short locks, room for the deliveries. */
const BATCH_SIZE = 1000;
const PAUSE_MS = 200;
const FIRST_RUN_AFTER_MS = 60_000;
const RUN_EVERY_MS = 10 * 60_000;

/** WAITING: timer set, nothing running. RUNNING: a run is deleting. STOPPED: shut down, no more runs. */
type RetentionState = 'WAITING' | 'RUNNING' | 'STOPPED';

export type RetentionRun =
  | { ran: false } // another instance holds the lock
  | { ran: true; deliveries: number; events: number };

/**
 * Deletes delivery records and events older than RETENTION_DAYS (contract section 8, Retention):
 * records first, then the events no record or pending job refers to any more. One instance at a
 * time (a session advisory lock, on a connection held for the run), in batches with pauses, every
 * ten minutes.
 */
@Injectable()
export class RetentionService implements OnApplicationBootstrap, OnModuleDestroy {
  private readonly logger = new Logger('Retention');
  private readonly retentionMs: number;
  private state: RetentionState = 'WAITING';
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<RetentionRun> | undefined;

  constructor(
    private readonly dataSource: DataSource,
    private readonly deliveryRecords: DeliveryRecords,
    private readonly outbox: WebhookOutbox,
    config: ConfigService<AppConfig, true>,
  ) {
    this.retentionMs = config.getOrThrow('retention', { infer: true }).days * DAY_MS;
  }

  onApplicationBootstrap(): void {
    this.schedule(FIRST_RUN_AFTER_MS);
  }

  async onModuleDestroy(): Promise<void> {
    this.state = 'STOPPED'; // a run stops after its current batch
    clearTimeout(this.timer);
    await this.running?.catch(() => undefined);
  }

  /** One run now (or the one in progress here); `{ ran: false }` while another instance runs. */
  runOnce(now = new Date()): Promise<RetentionRun> {
    if (this.state === 'STOPPED') return Promise.resolve({ ran: false });
    this.running ??= this.run(new Date(now.getTime() - this.retentionMs)).finally(() => {
      this.running = undefined;
      if (this.state === 'RUNNING') this.state = 'WAITING';
    });
    return this.running;
  }

  private schedule(delayMs: number): void {
    this.timer = setTimeout(() => {
      this.runOnce()
        .then((run) => {
          if (run.ran && run.deliveries + run.events > 0)
            this.logger.log({ ...run }, 'retention deleted old rows');
        })
        // The next run tries again; nothing is lost meanwhile.
        .catch((error: unknown) => this.logger.error({ err: error }, 'retention run failed'))
        .finally(() => {
          if (this.state !== 'STOPPED') this.schedule(RUN_EVERY_MS);
        });
    }, delayMs);
    this.timer.unref();
  }

  private async run(cutoff: Date): Promise<RetentionRun> {
    const runner = this.dataSource.createQueryRunner();
    await runner.connect();
    try {
      const [{ locked }] = await runner.query('SELECT pg_try_advisory_lock($1) AS locked', [RETENTION_LOCK]);
      if (!locked) return { ran: false };
      this.state = 'RUNNING';
      try {
        const deliveries = await this.deleteInBatches(
          runner,
          this.deliveryRecords.deleteExpiredBatch,
          cutoff,
        );
        const events = await this.deleteInBatches(runner, this.outbox.deleteExpiredEventsBatch, cutoff);
        return { ran: true, deliveries, events };
      } finally {
        await runner.query('SELECT pg_advisory_unlock($1)', [RETENTION_LOCK]).catch(() => undefined);
      }
    } finally {
      await runner.release();
    }
  }

  /** Walks the table in id order until it reaches rows younger than the cutoff, or the end. */
  private async deleteInBatches(
    runner: QueryRunner,
    statement: RetentionStatement,
    cutoff: Date,
  ): Promise<number> {
    let deleted = 0;
    let afterId = '0';
    while (this.state === 'RUNNING') {
      const batch = await statement(runner, cutoff, afterId, BATCH_SIZE);
      deleted += batch.deleted;
      if (batch.examined < BATCH_SIZE || batch.reachedCutoff || batch.lastId === null) break;
      afterId = batch.lastId;
      await new Promise((resolve) => setTimeout(resolve, PAUSE_MS));
    }
    return deleted;
  }
}
