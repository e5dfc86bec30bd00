import { randomUUID } from 'node:crypto';
import { hostname } from 'node:os';
import { Injectable, Logger, OnApplicationBootstrap, OnModuleDestroy } from '@nestjs/common';
import { ConfigService } from '@nestjs/config';
import pg from 'pg';
import { DataSource } from 'typeorm';
import type { PostgresDataSourceOptions } from 'typeorm/driver/postgres/PostgresDataSourceOptions.js';
import type { WebhookEvent } from '../common/reference/enums';
import type { AppConfig } from '../config/configuration';
import { DeliveryOutcome, WebhookSender } from './webhook-sender.service';

/** Channel of the NOTIFY sent by the webhook_jobs insert trigger (migration CreateDispatcher). */
export const JOBS_CHANNEL = 'webhook_jobs';
/** Most jobs taken by one claim query. */
const MAX_CLAIM_BATCH = 100;
/** Completions are written together: when this many are waiting, or FLUSH_DELAY_MS after the first. */
const FLUSH_MAX = 200;
const FLUSH_DELAY_MS = 5;
const RETRY_DELAY_MS = 1000;

interface ClaimedJob {
  id: string;
  eventId: string;
  subscriptionId: number;
  eventType: WebhookEvent;
  payload: string;
  url: string;
  headerName: string | null;
  headerValueEncrypted: string | null;
  /** host[:port] of the receiver: the unit of the per-receiver in-flight cap. */
  origin: string;
}

interface Completion {
  job: ClaimedJob;
  outcome: DeliveryOutcome;
}

/** The receiver key, computed in SQL so claiming can skip saturated receivers before LIMIT. */
const ORIGIN_SQL = `lower(substring(s.url FROM '^[A-Za-z][A-Za-z0-9+.-]*://([^/?#]*)'))`;

/**
 * Claims due jobs: not leased, or leased by an instance whose lease ran out (a crash). Oldest
 * first, skipping rows another instance is claiming (SKIP LOCKED) and receivers already at their
 * in-flight cap here ($3), then at most the receiver's room ($5/$6, else $4) per receiver, so one
 * busy receiver cannot take the whole batch. One auto-committed statement: no transaction stays
 * open while the HTTP calls run; the lease (DB clock) is what keeps other instances off them.
 * Hand-written because of the locking clause and the window function.
 */
const CLAIM_SQL = `
  WITH candidates AS MATERIALIZED (
    SELECT j.id, ${ORIGIN_SQL} AS origin
    FROM webhook_jobs j
    JOIN subscriptions s ON s.id = j.subscription_id
    WHERE (j.lease_until IS NULL OR j.lease_until < now())
      AND ${ORIGIN_SQL} <> ALL ($3::text[])
    ORDER BY j.id
    LIMIT $7
    FOR UPDATE OF j SKIP LOCKED
  ), picked AS (
    SELECT r.id
    FROM (
      SELECT c.id, c.origin, row_number() OVER (PARTITION BY c.origin ORDER BY c.id) AS rank
      FROM candidates c
    ) r
    LEFT JOIN unnest($5::text[], $6::int[]) AS room(origin, free) ON room.origin = r.origin
    WHERE r.rank <= COALESCE(room.free, $4)
    ORDER BY r.id
    LIMIT $8
  )
  UPDATE webhook_jobs j
  SET lease_until = now() + $1 * interval '1 millisecond', leased_by = $2, attempts = j.attempts + 1
  FROM picked p, webhook_events e, subscriptions s
  WHERE j.id = p.id AND e.id = j.event_id AND s.id = j.subscription_id
  RETURNING j.id, j.event_id AS "eventId", j.subscription_id AS "subscriptionId",
    e.event_type AS "eventType", e.payload::text AS payload, s.url, s.header_name AS "headerName",
    s.header_value_encrypted AS "headerValueEncrypted", ${ORIGIN_SQL} AS origin`;

/**
 * One statement, so atomic: each finished job is deleted and its delivery record written together.
 * A subscription deleted meanwhile takes its history with it, so its records are skipped (a delete
 * racing this statement makes it fail on the foreign key; the retry then skips them).
 */
const COMPLETE_SQL = `
  WITH done AS (
    DELETE FROM webhook_jobs WHERE id = ANY ($1::bigint[])
  )
  INSERT INTO webhook_deliveries
    (event_id, subscription_id, event_type, status, http_status_code, error_message, sent_at)
  SELECT d.event_id, d.subscription_id, d.event_type, d.status, d.http_status_code, d.error_message, d.sent_at
  FROM unnest($1::bigint[], $2::bigint[], $3::int[], $4::varchar[], $5::varchar[], $6::int[],
              $7::varchar[], $8::timestamptz[])
    AS d(job_id, event_id, subscription_id, event_type, status, http_status_code, error_message, sent_at)
  WHERE EXISTS (SELECT 1 FROM subscriptions s WHERE s.id = d.subscription_id)`;

/** Hands this instance's unfinished jobs back at shutdown, so they are claimable at once. */
const RELEASE_SQL = `
  UPDATE webhook_jobs SET lease_until = NULL, leased_by = NULL WHERE leased_by = $1 RETURNING id`;

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/**
 * Delivers pending jobs (contract section 6). A claim runs when a job is published (NOTIFY, on a
 * dedicated LISTEN connection, so every instance hears it), when a slot frees while work may be
 * waiting, and on a periodic sweep that takes jobs whose lease ran out. At most WEBHOOK_CONCURRENCY
 * requests are in flight here, at most a quarter of them (rounded up) per receiver (host:port), and
 * one for a receiver whose last attempt got no answer at all: slow or dead receivers cannot take
 * the slots the others need.
 */
@Injectable()
export class WebhookWorker implements OnApplicationBootstrap, OnModuleDestroy {
  private readonly logger = new Logger('WebhookWorker');
  readonly instanceId = `${hostname().slice(0, 40)}:${process.pid}:${randomUUID().slice(0, 8)}`;
  private readonly concurrency: number;
  readonly perReceiverLimit: number;
  /** ≤ WEBHOOK_TIMEOUT_MS + 5 s; with the sweep period (≤ 5 s) a crashed instance's jobs are retried
   * within WEBHOOK_TIMEOUT_MS + 10 s of another instance running (contract section 6). */
  readonly leaseMs: number;
  private readonly sweepMs: number;
  private readonly graceMs: number;

  private readonly inFlight = new Map<string, Promise<void>>();
  private readonly perReceiver = new Map<string, number>();
  /** Receivers whose last attempt got no answer, until when they are held to one request in flight. */
  private readonly unresponsive = new Map<string, number>();
  private readonly unresponsiveForMs: number;
  private readonly interrupt = new AbortController();
  private pending: Completion[] = [];
  private flushTimer: NodeJS.Timeout | undefined;
  private flushing: Promise<void> | undefined;
  private claimWanted = false;
  /** Due jobs may be waiting that the last claim did not take (batch full, receivers saturated). */
  private backlog = true;
  private claiming: Promise<void> | undefined;
  private sweepTimer: NodeJS.Timeout | undefined;
  private listener: pg.Client | undefined;
  private reconnectTimer: NodeJS.Timeout | undefined;
  private started = false;
  private stopping = false;

  constructor(
    private readonly dataSource: DataSource,
    private readonly sender: WebhookSender,
    config: ConfigService<AppConfig, true>,
  ) {
    const webhook = config.getOrThrow('webhook', { infer: true });
    this.concurrency = webhook.concurrency;
    this.perReceiverLimit = Math.max(1, Math.ceil(webhook.concurrency / 4));
    const margin = Math.min(5000, Math.max(2000, webhook.timeoutMs));
    this.leaseMs = webhook.timeoutMs + margin;
    this.sweepMs = Math.min(5000, Math.max(250, Math.floor(webhook.timeoutMs / 2)));
    this.graceMs = config.getOrThrow('app', { infer: true }).shutdownGraceMs;
    this.unresponsiveForMs = Math.max(60_000, 2 * webhook.timeoutMs);
  }

  async onApplicationBootstrap(): Promise<void> {
    this.started = true;
    this.sweepTimer = setInterval(() => {
      this.backlog = true;
      this.wake();
    }, this.sweepMs);
    this.sweepTimer.unref();
    await this.listen();
    this.wake(); // jobs left by an earlier run, released at shutdown or whose lease ran out
  }

  /** Asks for a claim soon; claims never overlap within an instance. */
  wake(): void {
    if (!this.started || this.stopping) return;
    this.claimWanted = true;
    if (this.claiming) return;
    this.claiming = this.claimLoop().finally(() => {
      this.claiming = undefined;
      if (this.claimWanted && !this.stopping && this.inFlight.size < this.concurrency) this.wake();
    });
  }

  private async claimLoop(): Promise<void> {
    while (this.claimWanted && !this.stopping) {
      this.claimWanted = false;
      const free = this.concurrency - this.inFlight.size;
      if (free <= 0) {
        this.backlog = true; // a finishing delivery claims again
        return;
      }
      const saturated: string[] = [];
      const limited: string[] = [];
      const room: number[] = [];
      const now = Date.now();
      for (const [origin, until] of this.unresponsive) if (until <= now) this.unresponsive.delete(origin);
      for (const origin of new Set([...this.perReceiver.keys(), ...this.unresponsive.keys()])) {
        const free = this.limitFor(origin) - (this.perReceiver.get(origin) ?? 0);
        if (free <= 0) saturated.push(origin);
        else {
          limited.push(origin);
          room.push(free);
        }
      }
      const wanted = Math.min(free, MAX_CLAIM_BATCH);
      let jobs: ClaimedJob[];
      try {
        // TypeORM answers an UPDATE with [rows, rowCount].
        [jobs] = (await this.dataSource.query(CLAIM_SQL, [
          this.leaseMs,
          this.instanceId,
          saturated,
          this.perReceiverLimit,
          limited,
          room,
          wanted * 4,
          wanted,
        ])) as [ClaimedJob[], number];
      } catch (error) {
        // The sweep tries again; nothing is lost meanwhile.
        this.logger.error({ err: error }, 'claiming webhook jobs failed');
        return;
      }
      for (const job of jobs) if (!this.inFlight.has(job.id)) this.start(job);
      this.backlog = jobs.length === wanted || saturated.length > 0 || limited.length > 0;
      if (jobs.length === wanted) this.claimWanted = true;
    }
  }

  private start(job: ClaimedJob): void {
    this.perReceiver.set(job.origin, (this.perReceiver.get(job.origin) ?? 0) + 1);
    const run = async () => {
      const result = await this.sender.send(job, this.interrupt.signal);
      // Interrupted by shutdown before any answer: no record; released below for another attempt.
      if ('interrupted' in result) return;
      this.noteResponsiveness(job.origin, result);
      this.complete({ job, outcome: result });
    };
    const task = run()
      .catch((error: unknown) => this.logger.error({ err: error, jobId: job.id }, 'webhook delivery crashed'))
      .finally(() => {
        this.inFlight.delete(job.id);
        const left = (this.perReceiver.get(job.origin) ?? 1) - 1;
        if (left > 0) this.perReceiver.set(job.origin, left);
        else this.perReceiver.delete(job.origin);
        if (this.backlog) this.wake();
      });
    this.inFlight.set(job.id, task);
  }

  /** A receiver that did not answer at all (time-out, unreachable) gets one request at a time for a while. */
  private limitFor(origin: string): number {
    return this.unresponsive.has(origin) ? 1 : this.perReceiverLimit;
  }

  private noteResponsiveness(origin: string, outcome: DeliveryOutcome): void {
    if (outcome.httpStatusCode !== null) this.unresponsive.delete(origin);
    else this.unresponsive.set(origin, Date.now() + this.unresponsiveForMs);
  }

  private complete(completion: Completion): void {
    this.pending.push(completion);
    if (this.pending.length >= FLUSH_MAX) void this.flush();
    else this.flushTimer ??= setTimeout(() => void this.flush(), FLUSH_DELAY_MS);
  }

  /** Writes waiting completions; one flush at a time. Resolves when nothing is left or `retries` ran out. */
  private flush(retries = Infinity): Promise<void> {
    clearTimeout(this.flushTimer);
    this.flushTimer = undefined;
    this.flushing ??= this.flushLoop(retries).finally(() => (this.flushing = undefined));
    return this.flushing;
  }

  private async flushLoop(retries: number): Promise<void> {
    let failures = 0;
    while (this.pending.length > 0) {
      const batch = this.pending.splice(0, FLUSH_MAX);
      try {
        await this.writeCompletions(batch);
        failures = 0;
      } catch (error) {
        this.pending.unshift(...batch);
        failures++;
        const code = (error as { driverError?: { code?: string } }).driverError?.code;
        if (code === '23503' && failures < 3) continue; // a subscription deleted meanwhile
        this.logger.error({ err: error, count: batch.length }, 'writing webhook delivery records failed');
        if (failures > retries || (this.stopping && failures > 2)) return;
        await sleep(RETRY_DELAY_MS);
      }
    }
  }

  private async writeCompletions(batch: Completion[]): Promise<void> {
    const col = <T>(pick: (c: Completion) => T) => batch.map(pick);
    await this.dataSource.query(COMPLETE_SQL, [
      col((c) => c.job.id),
      col((c) => c.job.eventId),
      col((c) => c.job.subscriptionId),
      col((c) => c.job.eventType),
      col((c) => c.outcome.status),
      col((c) => c.outcome.httpStatusCode),
      col((c) => c.outcome.errorMessage),
      col((c) => c.outcome.sentAt),
    ]);
  }

  private async listen(): Promise<void> {
    if (this.stopping) return;
    const options = this.dataSource.options as PostgresDataSourceOptions;
    // Its own connection, outside the pool: LISTEN holds it for the life of the process.
    const client = new pg.Client({ connectionString: options.url });
    const reconnect = (error?: unknown) => {
      if (this.listener !== client) return;
      this.listener = undefined;
      client.removeAllListeners('notification');
      void client.end().catch(() => undefined);
      if (this.stopping) return;
      this.logger.warn({ err: error }, 'LISTEN connection lost; the sweep covers until it is back');
      this.reconnectTimer = setTimeout(() => void this.listen(), RETRY_DELAY_MS);
    };
    client.on('error', reconnect);
    client.on('end', () => reconnect());
    client.on('notification', () => {
      this.backlog = true;
      this.wake();
    });
    this.listener = client;
    try {
      await client.connect();
      await client.query(`LISTEN ${JOBS_CHANNEL}`);
      this.wake(); // anything published while nobody was listening
    } catch (error) {
      reconnect(error);
    }
  }

  /**
   * Graceful shutdown (contract section 1): stop claiming, let in-flight deliveries finish within
   * SHUTDOWN_GRACE_MS, interrupt the rest, write every finished delivery, then release this
   * instance's unfinished jobs so another instance (or the next start) takes them at once. Runs
   * before the database pool closes (TypeORM closes it in onApplicationShutdown).
   */
  async onModuleDestroy(): Promise<void> {
    this.stopping = true;
    clearInterval(this.sweepTimer);
    clearTimeout(this.reconnectTimer);
    const listener = this.listener;
    this.listener = undefined;
    await listener?.end().catch(() => undefined);
    if (!this.started) return this.sender.close();
    await this.claiming;

    if (this.inFlight.size > 0) {
      let timer: NodeJS.Timeout | undefined;
      await Promise.race([
        Promise.allSettled(this.inFlight.values()),
        new Promise<void>((resolve) => (timer = setTimeout(resolve, this.graceMs))),
      ]);
      clearTimeout(timer);
    }
    const cutOff = this.inFlight.size;
    this.interrupt.abort();
    await Promise.allSettled(this.inFlight.values());
    await this.flush(2);
    try {
      const [, released] = (await this.dataSource.query(RELEASE_SQL, [this.instanceId])) as [
        unknown[],
        number,
      ];
      // Committed already: wake every instance now rather than at its next sweep.
      if (released > 0) await this.dataSource.query(`SELECT pg_notify('${JOBS_CHANNEL}', '')`);
      if (released > 0 || cutOff > 0) {
        this.logger.log(`shutdown: ${cutOff} deliveries interrupted, ${released} jobs released`);
      }
    } catch (error) {
      // Their leases run out instead; another instance then takes them.
      this.logger.error({ err: error }, 'releasing webhook jobs at shutdown failed');
    }
    this.sender.close();
  }
}
