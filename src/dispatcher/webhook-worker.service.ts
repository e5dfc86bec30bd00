import { randomUUID } from 'node:crypto';
import { hostname } from 'node:os';
import { Injectable, Logger, OnApplicationBootstrap, OnModuleDestroy } from '@nestjs/common';
import { ConfigService } from '@nestjs/config';
import pg from 'pg';
import { DataSource } from 'typeorm';
import type { PostgresDataSourceOptions } from 'typeorm/driver/postgres/PostgresDataSourceOptions.js';
import type { WebhookEvent } from '../common/reference/enums';
import type { AppConfig } from '../config/configuration';
import { preparedQuery } from '../database/prepared-query';
import { MetricsService } from '../metrics/metrics.service';
import { DeliveryOutcome, WebhookSender } from './webhook-sender.service';

/** Channel of the NOTIFY sent by the webhook_jobs insert trigger (migration CreateDispatcher). */
export const JOBS_CHANNEL = 'webhook_jobs';
/** Channel of the NOTIFY sent when subscriptions are deleted or change tenant (migration NotifySubscriptionsGone). */
export const GONE_CHANNEL = 'webhook_subscriptions_gone';
/** Most jobs taken by one claim query. */
const MAX_CLAIM_BATCH = 100;
/** Completions are written together: when this many are waiting, or FLUSH_DELAY_MS after the first. */
const FLUSH_MAX = 200;
const FLUSH_DELAY_MS = 5;
const RETRY_DELAY_MS = 1000;
/**
 * A claimed job waits in the local queue at most this long for a slot. One that waited longer is
 * released unsent (its receiver is slower than its share of the slots) and that receiver is not
 * claimed ahead for a while. Far below the lease margin (at least 2 s), so a job never starts late
 * in its lease; and a subscription deleted meanwhile gets at most this much of a tail.
 */
const MAX_QUEUE_WAIT_MS = 500;
const NO_PREFETCH_FOR_MS = 60_000;

interface ClaimedJob {
  id: string;
  eventId: string;
  subscriptionId: number;
  eventType: WebhookEvent;
  /** The event's tenant: its record is written only while the subscription still belongs to it. */
  tenant: string;
  payload: string;
  url: string;
  headerName: string | null;
  headerValueEncrypted: string | null;
  /** host[:port] of the receiver: the unit of the per-receiver in-flight cap. */
  origin: string;
  publishedAt: Date;
}

/** A claimed job waiting in the local queue for a slot, until `sendBy` (performance.now()). */
interface QueuedJob extends ClaimedJob {
  sendBy: number;
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
 * The UPDATE takes the picked ids as an array, so it reads them through the primary key (a join
 * made the planner hash the whole table), and the rows are joined to their event and subscription
 * after it. Hand-written because of the locking clause and the window function.
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
  ), claimed AS (
    UPDATE webhook_jobs j
    SET lease_until = now() + $1 * interval '1 millisecond', leased_by = $2, attempts = j.attempts + 1
    WHERE j.id = ANY (ARRAY(SELECT id FROM picked))
    RETURNING j.id, j.event_id, j.subscription_id
  )
  SELECT c.id, c.event_id AS "eventId", c.subscription_id AS "subscriptionId",
    e.event_type AS "eventType", e.tenant, e.payload::text AS payload, s.url, s.header_name AS "headerName",
    s.header_value_encrypted AS "headerValueEncrypted", ${ORIGIN_SQL} AS origin, e.created_at AS "publishedAt"
  FROM claimed c
  JOIN webhook_events e ON e.id = c.event_id
  JOIN subscriptions s ON s.id = c.subscription_id
  ORDER BY c.id`;

/**
 * One statement, so atomic: each finished job is deleted and its delivery record written together.
 * A subscription deleted meanwhile takes its history with it, so its records are skipped (a delete
 * racing this statement makes it fail on the foreign key; the retry then skips them); so are those
 * of a subscription moved to another tenant meanwhile (its history went with the move).
 */
const COMPLETE_SQL = `
  WITH done AS (
    DELETE FROM webhook_jobs WHERE id = ANY ($1::bigint[])
  )
  INSERT INTO webhook_deliveries
    (event_id, subscription_id, event_type, status, http_status_code, error_message, sent_at)
  SELECT d.event_id, d.subscription_id, d.event_type, d.status, d.http_status_code, d.error_message, d.sent_at
  FROM unnest($1::bigint[], $2::bigint[], $3::int[], $4::varchar[], $5::varchar[], $6::int[],
              $7::varchar[], $8::timestamptz[], $9::varchar[])
    AS d(job_id, event_id, subscription_id, event_type, status, http_status_code, error_message, sent_at,
         tenant)
  WHERE EXISTS (SELECT 1 FROM subscriptions s WHERE s.id = d.subscription_id AND s.tenant = d.tenant)`;

/** Hands this instance's unfinished jobs back at shutdown, so they are claimable at once. */
const RELEASE_SQL = `
  UPDATE webhook_jobs SET lease_until = NULL, leased_by = NULL WHERE leased_by = $1 RETURNING id`;

/** Hands back queued jobs that waited too long, unsent: their claim was not an attempt. */
const RELEASE_UNSENT_SQL = `
  UPDATE webhook_jobs SET lease_until = NULL, leased_by = NULL, attempts = attempts - 1
  WHERE id = ANY ($1::bigint[]) AND leased_by = $2`;

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/**
 * Delivers pending jobs (contract section 6). A claim runs when a job is published (NOTIFY, on a
 * dedicated LISTEN connection, so every instance hears it), when room frees while work may be
 * waiting, and on a periodic sweep that takes jobs whose lease ran out. At most WEBHOOK_CONCURRENCY
 * requests are in flight here, at most a quarter of them (rounded up) per receiver (host:port), and
 * one for a receiver whose last attempt got no answer at all: slow or dead receivers cannot take
 * the slots the others need.
 *
 * Claims run ahead of the free slots: up to as many jobs again wait in a local queue (per receiver,
 * up to its in-flight cap), so a slot that frees starts the next delivery at once instead of idling
 * through a claim's round trip. A queued job is sent within MAX_QUEUE_WAIT_MS of its claim or
 * handed back unsent.
 */
@Injectable()
export class WebhookWorker implements OnApplicationBootstrap, OnModuleDestroy {
  private readonly logger = new Logger('WebhookWorker');
  readonly instanceId = `${hostname().slice(0, 40)}:${process.pid}:${randomUUID().slice(0, 8)}`;
  private readonly concurrency: number;
  readonly perReceiverLimit: number;
  /** Jobs leased here at once, in flight or queued. */
  private readonly capacity: number;
  /** A claim waits until this much room is free, unless slots are idle: fewer, fuller claims. */
  private readonly minClaim: number;
  /** ≤ WEBHOOK_TIMEOUT_MS + 5 s; with the sweep period (≤ 5 s) a crashed instance's jobs are retried
   * within WEBHOOK_TIMEOUT_MS + 10 s of another instance running (contract section 6). */
  readonly leaseMs: number;
  private readonly sweepMs: number;
  private readonly graceMs: number;

  private readonly inFlight = new Map<string, Promise<void>>();
  private readonly perReceiver = new Map<string, number>();
  private readonly queue: QueuedJob[] = [];
  private readonly queuedPerReceiver = new Map<string, number>();
  /** Receivers whose last attempt got no answer, until when they are held to one request in flight. */
  private readonly unresponsive = new Map<string, number>();
  private readonly unresponsiveForMs: number;
  /** Receivers whose queued jobs waited too long, until when none are claimed ahead for them. */
  private readonly noPrefetch = new Map<string, number>();
  private pending: Completion[] = [];
  /** Jobs delivered here whose record is not written yet (waiting, or being written). */
  private readonly unrecorded = new Set<string>();
  private flushTimer: NodeJS.Timeout | undefined;
  private flushing: Promise<void> | undefined;
  private claimWanted = false;
  /** Counts GONE_CHANNEL notifications, so a claim that raced one checks its jobs too. */
  private goneEpoch = 0;
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
    private readonly metrics: MetricsService,
  ) {
    const webhook = config.getOrThrow('webhook', { infer: true });
    this.concurrency = webhook.concurrency;
    this.perReceiverLimit = Math.max(1, Math.ceil(webhook.concurrency / 4));
    this.capacity = 2 * webhook.concurrency;
    this.minClaim = this.perReceiverLimit;
    const margin = Math.min(5000, Math.max(2000, webhook.timeoutMs));
    this.leaseMs = webhook.timeoutMs + margin;
    this.sweepMs = Math.min(5000, Math.max(250, Math.floor(webhook.timeoutMs / 2)));
    this.graceMs = config.getOrThrow('app', { infer: true }).shutdownGraceMs;
    this.unresponsiveForMs = Math.max(60_000, 2 * webhook.timeoutMs);
  }

  async onApplicationBootstrap(): Promise<void> {
    this.started = true;
    this.sweepTimer = setInterval(() => {
      this.drain(); // also hands back queued jobs that waited too long
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
      if (this.claimWanted && !this.stopping && this.roomToClaim() > 0) this.wake();
    });
  }

  /** How many more jobs a claim may take now: 0 while the room is too small to be worth a claim. */
  private roomToClaim(): number {
    const room = this.capacity - this.inFlight.size - this.queue.length;
    const idleSlots = this.inFlight.size < this.concurrency && this.queue.length === 0;
    return room >= this.minClaim || (idleSlots && room > 0) ? room : 0;
  }

  private async claimLoop(): Promise<void> {
    while (this.claimWanted && !this.stopping) {
      this.claimWanted = false;
      const room = this.roomToClaim();
      if (room === 0) {
        this.backlog = true; // a finishing delivery claims again
        return;
      }
      const now = Date.now();
      for (const [origin, until] of this.unresponsive) if (until <= now) this.unresponsive.delete(origin);
      for (const [origin, until] of this.noPrefetch) if (until <= now) this.noPrefetch.delete(origin);
      const saturated: string[] = [];
      const limited: string[] = [];
      const roomOf: number[] = [];
      const known = [this.perReceiver, this.queuedPerReceiver, this.unresponsive, this.noPrefetch];
      for (const origin of new Set(known.flatMap((map) => [...map.keys()]))) {
        const free = this.heldLimitFor(origin) - this.held(origin);
        if (free <= 0) saturated.push(origin);
        else {
          limited.push(origin);
          roomOf.push(free);
        }
      }
      const wanted = Math.min(room, MAX_CLAIM_BATCH);
      const epoch = this.goneEpoch;
      // Measured before the lease is taken, so the local deadline is never later than the lease allows.
      const sendBy = performance.now() + MAX_QUEUE_WAIT_MS;
      let jobs: ClaimedJob[];
      try {
        jobs = await preparedQuery<ClaimedJob>(this.dataSource, 'webhook_claim', CLAIM_SQL, [
          this.leaseMs,
          this.instanceId,
          saturated,
          2 * this.perReceiverLimit,
          limited,
          roomOf,
          wanted * 4,
          wanted,
        ]);
      } catch (error) {
        // The sweep tries again; nothing is lost meanwhile.
        this.logger.error({ err: error }, 'claiming webhook jobs failed');
        return;
      }
      for (const job of jobs) {
        // Only if its lease ran out here (a stalled process, or records that could not be written
        // for that long): it is running or done, and never sent again from this instance.
        if (this.inFlight.has(job.id) || this.unrecorded.has(job.id)) continue;
        this.queue.push({ ...job, sendBy });
        this.queuedPerReceiver.set(job.origin, (this.queuedPerReceiver.get(job.origin) ?? 0) + 1);
      }
      // Read before a subscription went meanwhile: drop its jobs before any starts.
      if (this.goneEpoch !== epoch && jobs.length > 0) await this.dropGone();
      this.drain();
      this.backlog = jobs.length === wanted || saturated.length > 0 || limited.length > 0;
      if (jobs.length === wanted) this.claimWanted = true;
    }
  }

  /**
   * Starts queued jobs, oldest first, while slots are free and their receivers have room; a job of
   * a saturated receiver does not hold back the others. Jobs past their `sendBy` are handed back.
   */
  private drain(): void {
    if (this.stopping) return;
    const now = performance.now();
    const expired: QueuedJob[] = [];
    for (let i = 0; i < this.queue.length && this.inFlight.size < this.concurrency;) {
      const job = this.queue[i];
      const late = job.sendBy < now;
      if (!late && (this.perReceiver.get(job.origin) ?? 0) >= this.limitFor(job.origin)) {
        i++;
        continue;
      }
      this.unqueue(i);
      if (late) expired.push(job);
      else this.start(job);
    }
    if (expired.length > 0) void this.releaseUnsent(expired);
  }

  /**
   * Subscriptions were deleted or moved to another tenant: their jobs are gone from the outbox
   * (contract section 5), so the ones claimed ahead and waiting here are dropped unsent. Those
   * already in flight finish; their records are not written (COMPLETE_SQL).
   */
  private async dropGone(): Promise<void> {
    if (this.queue.length === 0) return;
    const ids = [...new Set(this.queue.map((job) => job.subscriptionId))];
    let rows: Array<{ id: number; tenant: string }>;
    try {
      rows = await this.dataSource.query(`SELECT id, tenant FROM subscriptions WHERE id = ANY ($1::int[])`, [
        ids,
      ]);
    } catch (error) {
      // They are sent; their records are not written.
      this.logger.error({ err: error }, 'checking queued webhook jobs against their subscriptions failed');
      return;
    }
    const tenantOf = new Map(rows.map((row) => [row.id, row.tenant]));
    for (let i = this.queue.length - 1; i >= 0; i--) {
      const job = this.queue[i];
      if (tenantOf.get(job.subscriptionId) !== job.tenant) this.unqueue(i);
    }
  }

  /** Takes the job at `index` out of the local queue. */
  private unqueue(index: number): void {
    const [job] = this.queue.splice(index, 1);
    const left = this.queuedPerReceiver.get(job.origin)! - 1;
    if (left > 0) this.queuedPerReceiver.set(job.origin, left);
    else this.queuedPerReceiver.delete(job.origin);
  }

  private async releaseUnsent(jobs: QueuedJob[]): Promise<void> {
    const until = Date.now() + NO_PREFETCH_FOR_MS;
    for (const job of jobs) this.noPrefetch.set(job.origin, until);
    try {
      await this.dataSource.query(RELEASE_UNSENT_SQL, [jobs.map((job) => job.id), this.instanceId]);
    } catch (error) {
      // Their leases run out instead; then they are claimed again.
      this.logger.error({ err: error, count: jobs.length }, 'handing back queued webhook jobs failed');
    }
    this.backlog = true;
    this.wake();
  }

  private start(job: ClaimedJob): void {
    this.perReceiver.set(job.origin, (this.perReceiver.get(job.origin) ?? 0) + 1);
    const run = async () => {
      const result = await this.sender.send(job);
      // Interrupted by shutdown before any answer: no record; released below for another attempt.
      if ('interrupted' in result) return;
      this.noteResponsiveness(job.origin, result);
      this.metrics.deliveryAttempted({ outcome: result.status, trigger: 'EVENT', durationMs: Date.now() - result.sentAt.getTime(), publishedAt: job.publishedAt }); // prettier-ignore
      this.complete({ job, outcome: result });
    };
    const task = run()
      .catch((error: unknown) => this.logger.error({ err: error, jobId: job.id }, 'webhook delivery crashed'))
      .finally(() => {
        this.inFlight.delete(job.id);
        const left = (this.perReceiver.get(job.origin) ?? 1) - 1;
        if (left > 0) this.perReceiver.set(job.origin, left);
        else this.perReceiver.delete(job.origin);
        this.drain();
        if (this.backlog && this.roomToClaim() > 0) this.wake();
      });
    this.inFlight.set(job.id, task);
  }

  /** Jobs of a receiver leased here: in flight and queued. */
  private held(origin: string): number {
    return (this.perReceiver.get(origin) ?? 0) + (this.queuedPerReceiver.get(origin) ?? 0);
  }

  /** In-flight cap, plus as many again queued unless the receiver is slow or unresponsive. */
  private heldLimitFor(origin: string): number {
    const limit = this.limitFor(origin);
    return this.unresponsive.has(origin) || this.noPrefetch.has(origin) ? limit : 2 * limit;
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
    this.unrecorded.add(completion.job.id);
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
        for (const c of batch) this.unrecorded.delete(c.job.id);
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
    await preparedQuery(this.dataSource, 'webhook_complete', COMPLETE_SQL, [
      col((c) => c.job.id),
      col((c) => c.job.eventId),
      col((c) => c.job.subscriptionId),
      col((c) => c.job.eventType),
      col((c) => c.outcome.status),
      col((c) => c.outcome.httpStatusCode),
      col((c) => c.outcome.errorMessage),
      col((c) => c.outcome.sentAt),
      col((c) => c.job.tenant),
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
    client.on('notification', (message: pg.Notification) => {
      if (message.channel === GONE_CHANNEL) {
        this.goneEpoch++;
        void this.dropGone();
        return;
      }
      this.backlog = true;
      this.wake();
    });
    this.listener = client;
    try {
      await client.connect();
      await client.query(`LISTEN ${JOBS_CHANNEL}; LISTEN ${GONE_CHANNEL}`);
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
    this.sender.interruptAll();
    await Promise.allSettled(this.inFlight.values());
    await this.flush(2);
    // Queued jobs were never started: the release below hands them back with the rest.
    this.queue.length = 0;
    this.queuedPerReceiver.clear();
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
    await this.sender.close();
  }
}
