import { Injectable, Logger } from '@nestjs/common';
import type pg from 'pg';
import { Postgres } from '../database/postgres';
import { JOBS_CHANNEL } from './webhook-jobs.repository';

/** Channel of the NOTIFY sent when subscriptions are deleted or change tenant (migration NotifySubscriptionsGone). */
export const GONE_CHANNEL = 'webhook_subscriptions_gone';
const RECONNECT_DELAY_MS = 1000;

export interface NotificationHandlers {
  /** Jobs were committed (or released): a claim may find them. Also called on every (re)connect. */
  jobsWaiting(): void;
  /** Subscriptions were deleted or moved to another tenant. */
  subscriptionsGone(): void;
}

/**
 * The LISTEN connection: its own client outside the pool, held for the life of the process, so
 * every instance hears every publish. Lost (a database restart, pg_terminate_backend), it connects
 * again every RECONNECT_DELAY_MS until it is back, logging once per outage; the worker's sweep
 * covers meanwhile.
 */
@Injectable()
export class NotificationListener {
  private readonly logger = new Logger('NotificationListener');
  private client: pg.Client | undefined;
  private handlers: NotificationHandlers | undefined;
  private timer: NodeJS.Timeout | undefined;
  /** Failed attempts since the connection was last up. */
  private failures = 0;

  constructor(private readonly postgres: Postgres) {}

  async start(handlers: NotificationHandlers): Promise<void> {
    this.handlers = handlers;
    await this.connect();
  }

  async stop(): Promise<void> {
    this.handlers = undefined;
    clearTimeout(this.timer);
    const client = this.client;
    this.client = undefined;
    await client?.end().catch(() => undefined);
  }

  private async connect(): Promise<void> {
    if (!this.handlers) return;
    const client = this.postgres.dedicatedConnection();
    const lost = (error?: unknown) => this.lost(client, error);
    client.on('error', lost);
    client.on('end', () => lost());
    client.on('notification', (message: pg.Notification) => {
      if (message.channel === GONE_CHANNEL) this.handlers?.subscriptionsGone();
      else this.handlers?.jobsWaiting();
    });
    this.client = client;
    try {
      await client.connect();
      await client.query(`LISTEN ${JOBS_CHANNEL}; LISTEN ${GONE_CHANNEL}`);
      if (this.failures > 0) this.logger.log('LISTEN connection back');
      this.failures = 0;
      this.handlers?.jobsWaiting(); // anything published while nobody was listening
    } catch (error) {
      lost(error);
    }
  }

  private lost(client: pg.Client, error?: unknown): void {
    if (this.client !== client) return;
    this.client = undefined;
    client.removeAllListeners('notification');
    void client.end().catch(() => undefined);
    if (!this.handlers) return;
    if (this.failures++ === 0) {
      this.logger.warn(
        { err: error },
        'LISTEN connection lost; connecting again, the sweep covers meanwhile',
      );
    }
    this.timer = setTimeout(() => void this.connect(), RECONNECT_DELAY_MS);
  }
}
