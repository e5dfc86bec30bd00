import { Injectable } from '@nestjs/common';
import { DataSource, EntityManager, QueryRunner } from 'typeorm';
import { DeliveryTrigger, WebhookEvent } from '../common/reference/enums';
import { Postgres } from '../database/postgres';
import { enqueueOnce, KeyedEvent, RunStatement } from './idempotent-enqueue.statement';
import type { ClaimedJob } from './webhook-jobs.repository';

/** Anything that runs SQL inside the caller's transaction: an EntityManager or a QueryRunner. */
export type TransactionHandle = Pick<EntityManager, 'query'> | Pick<QueryRunner, 'query'>;

/** What enqueueAgain did, and what it saw: see ENQUEUE_AGAIN_SQL. */
export interface EnqueueAgainOutcome {
  enqueued: number;
  active: boolean | null;
  events: number;
}

/** An event as stored: its validated body as JSON text, and its publish span's traceparent (or null). */
export interface StoredEvent {
  eventType: string;
  tenant: string;
  /** ISO 8601. */
  timestamp: string;
  payload: string;
  traceContext: string | null;
}

/** The event row written and how many subscriptions got a job for it. */
export interface WrittenEvent {
  eventId: number;
  matched: number;
}

/** A publish's event row ($1 type, $2 tenant, $3 timestamp, $4 body, $5 traceparent), as CTE `event`. */
const EVENT_ROW = `event AS (
    INSERT INTO webhook_events (event_type, tenant, occurred_at, payload, trace_context)
    VALUES ($1, $2, $3, $4::json, $5)
    RETURNING id
  )`;

/** The subscriptions `s` a publish of type $1 for tenant $2 matches (the tenant out of the planner's sight). */
const MATCHING = `s.tenant = (SELECT $2::varchar) AND s.active AND $1::varchar = ANY (s.events)`;

/**
 * One statement, so the event and its jobs commit together (or not at all) even without an
 * explicit transaction: the event row, then one job per subscription matching at this moment
 * (active, same tenant, listing the event type; served by IDX_subscriptions_tenant_active_id).
 * The statement trigger on webhook_jobs queues NOTIFY webhook_jobs, sent at commit.
 *
 * FOR KEY SHARE holds what a foreign key would (webhook_jobs has none: migration
 * DispatchReferencesByStatements): it waits for a concurrent DELETE of a matching subscription, or
 * a move to another tenant (SubscriptionsService.replace locks it FOR UPDATE), and then, at READ
 * COMMITTED, skips the deleted row, or re-checks the moved one against the WHERE clause: a publish
 * racing them neither queues a job for a deleted subscription nor the old tenant's event for the
 * new one. Every statement that writes jobs locks its subscriptions so.
 *
 * `(SELECT $2::varchar)` hides the tenant from the planner, so every tenant's publish costs the same
 * plan and PostgreSQL keeps the named statement's generic plan. With the tenant in sight, one tenant
 * holding a large share of the subscriptions makes a small tenant's plan look cheaper than the
 * generic one, and PostgreSQL then plans the statement again on every publish (custom plans), which
 * doubled its CPU per publish in the bench.
 */
const ENQUEUE_SQL = `
  WITH ${EVENT_ROW}, jobs AS (
    INSERT INTO webhook_jobs (event_id, subscription_id)
    SELECT event.id, s.id
    FROM event CROSS JOIN subscriptions s
    WHERE ${MATCHING}
    ORDER BY s.id
    FOR KEY SHARE OF s
    RETURNING 1
  )
  SELECT event.id AS "eventId", (SELECT count(*) FROM jobs)::int AS "matched" FROM event`;

/**
 * Jobs a publish leases to this instance as it writes them (WebhookWorker.leaseForPublish): what the
 * claim after its commit would have taken, without that claim.
 */
export interface PublishLease {
  instanceId: string;
  leaseMs: number;
  /** Most jobs to lease. */
  most: number;
  /** Subscriptions and receiver hosts at their cap here: their jobs are left for a claim. */
  skipSubscriptions: number[];
  skipHosts: string[];
}

/** The event written, and the jobs it leased to this instance (as a claim returns them). */
export interface WrittenLeasedEvent extends WrittenEvent {
  leased: ClaimedJob[];
}

/**
 * ENQUEUE_SQL, leasing up to $8 of the jobs to instance $7 as it writes them (attempts 1, the
 * claim's lease: PublishLease), and returning those with what their deliveries need, as the claim
 * does (WebhookJobsRepository.claimDue); the event's own columns the caller has. Rate-limited
 * subscriptions' jobs, and those of subscriptions ($9) and hosts ($10) at their cap, are written
 * unleased, for a claim: the slots and the caps are its part. The subscriptions are locked and read
 * first, as in ENQUEUE_ONCE_SQL (idempotent-enqueue.statement.ts), so that the jobs can be numbered.
 * The NOTIFY trigger stays silent when every job was leased (migration PublishLeasedJobs).
 */
const ENQUEUE_LEASING_SQL = `
  WITH ${EVENT_ROW}, matching AS (
    SELECT s.id, s.max_deliveries_per_second IS NULL AND s.id <> ALL ($9::int[])
        AND s.receiver_host <> ALL ($10::text[]) IS TRUE AS leasable
    FROM subscriptions s
    WHERE ${MATCHING}
    ORDER BY s.id
    FOR KEY SHARE OF s
  ), numbered AS (
    SELECT m.id, m.leasable AND row_number() OVER (PARTITION BY m.leasable ORDER BY m.id) <= $8 AS leased
    FROM matching m
  ), jobs AS (
    INSERT INTO webhook_jobs (event_id, subscription_id, lease_until, leased_by, attempts)
    SELECT event.id, n.id, CASE WHEN n.leased THEN now() + $6 * interval '1 millisecond' END,
      CASE WHEN n.leased THEN $7::varchar END, CASE WHEN n.leased THEN 1 ELSE 0 END
    FROM event CROSS JOIN numbered n
    ORDER BY n.id
    RETURNING id, subscription_id, leased_by IS NOT NULL AS leased, created_at
  )
  SELECT event.id AS "eventId", (SELECT count(*) FROM jobs)::int AS "matched", j.id,
    j.subscription_id AS "subscriptionId", s.url, s.header_name AS "headerName",
    s.header_value_encrypted AS "headerValueEncrypted", s.receiver_host AS host, j.created_at AS "publishedAt",
    s.signing_secret_encrypted AS "signingSecretEncrypted",
    CASE WHEN s.previous_signing_secret_until > now() THEN s.previous_signing_secret_encrypted END
      AS "previousSigningSecretEncrypted"
  FROM event
  LEFT JOIN (jobs j JOIN subscriptions s ON s.id = j.subscription_id) ON j.leased
  ORDER BY j.id`;

/** A row of ENQUEUE_LEASING_SQL: the event's id and match count, with one leased job or (id null) none. */
type LeasingRow = { matched: number } & Omit<
  ClaimedJob,
  'eventType' | 'tenant' | 'payload' | 'trigger' | 'traceContext' | 'active' | 'startInMs' | 'nextSlotInMs'
>;

/**
 * Resend and recover (contract section 9): one job per given event for one subscription, while it
 * is active and of the event's tenant, skipping events that have a job pending for it. Two calls at
 * once insert an event once: the second waits on the first's row in
 * UQ_webhook_jobs_event_subscription_again, then skips it (ON CONFLICT). FOR KEY SHARE, as in
 * ENQUEUE_SQL: a subscription or event deleted meanwhile is skipped, not a foreign-key error.
 * `active` (null: the subscription is gone, or moved from tenant $4) and `events` (how many of the
 * given still exist) are read with the same lock, after any delete or move they waited for: when
 * nothing was queued, they say why, without another round trip.
 */
const ENQUEUE_AGAIN_SQL = `
  WITH jobs AS (
    INSERT INTO webhook_jobs (event_id, subscription_id, trigger)
    SELECT e.id, s.id, $3
    FROM subscriptions s
    JOIN webhook_events e ON e.id = ANY ($2::bigint[]) AND e.tenant = s.tenant
    WHERE s.id = $1 AND s.active
      AND NOT EXISTS (SELECT 1 FROM webhook_jobs p WHERE p.event_id = e.id AND p.subscription_id = s.id)
    ORDER BY e.id
    FOR KEY SHARE OF s, e
    ON CONFLICT (event_id, subscription_id) WHERE trigger <> 'EVENT' DO NOTHING
    RETURNING 1
  )
  SELECT (SELECT count(*) FROM jobs)::int AS "enqueued",
    (SELECT active FROM subscriptions WHERE id = $1 AND tenant = $4 FOR KEY SHARE) AS "active",
    (SELECT count(*) FROM (SELECT 1 FROM webhook_events WHERE id = ANY ($2::bigint[]) FOR KEY SHARE) e)::int
      AS "events"`;

/**
 * A test event (contract section 9): the event row and one job for this subscription only, active
 * or not (the claim does not look at `active`), in one statement. Nothing matches it to other
 * subscriptions: only ENQUEUE_SQL matches, at publication.
 */
const ENQUEUE_TEST_SQL = `
  WITH event AS (
    INSERT INTO webhook_events (event_type, tenant, occurred_at, payload, trace_context)
    VALUES ($2, $3, $4, $5::json, $6)
    RETURNING id
  ), job AS (
    INSERT INTO webhook_jobs (event_id, subscription_id, trigger)
    SELECT event.id, s.id, '${DeliveryTrigger.TEST}'
    FROM event CROSS JOIN subscriptions s
    WHERE s.id = $1 AND s.tenant = $3
    FOR KEY SHARE OF s
    RETURNING 1
  )
  SELECT event.id AS "eventId", (SELECT count(*) FROM job)::int AS "matched" FROM event`;

/**
 * The outbox's statements over webhook_events and the jobs written with them (WebhookOutbox is the
 * policy: validation, idempotency, tracing). Each runs on the pool, committed when it resolves, or
 * in the caller's transaction when given one.
 */
@Injectable()
export class WebhookEventsRepository {
  constructor(
    private readonly dataSource: DataSource,
    private readonly postgres: Postgres,
  ) {}

  /**
   * The publish's statements run in the caller's transaction when given one; otherwise on the pool
   * as named prepared statements (parsed and planned once per connection: each publish otherwise
   * plans its CTEs again).
   */
  private runner(transaction: TransactionHandle | undefined): RunStatement {
    if (transaction) return (_name, text, values) => transaction.query(text, values) as Promise<unknown[]>;
    return (name, text, values) => this.postgres.query(name, text, values);
  }

  /** The event and one job per subscription matching it now (ENQUEUE_SQL). */
  async insertWithJobs(event: StoredEvent, transaction?: TransactionHandle): Promise<WrittenEvent> {
    const params = [event.eventType, event.tenant, event.timestamp, event.payload, event.traceContext];
    const rows = (await this.runner(transaction)('webhook_enqueue', ENQUEUE_SQL, params)) as Array<{
      eventId: string;
      matched: number;
    }>;
    return { eventId: Number(rows[0].eventId), matched: rows[0].matched };
  }

  /** As insertWithJobs, on the pool, leasing jobs to this instance (ENQUEUE_LEASING_SQL). */
  async insertLeasing(event: StoredEvent, lease: PublishLease): Promise<WrittenLeasedEvent> {
    const { eventType, tenant, timestamp, payload, traceContext } = event;
    const { leaseMs, instanceId, most, skipSubscriptions, skipHosts } = lease;
    const params = [eventType, tenant, timestamp, payload, traceContext, leaseMs, instanceId, most];
    const rows = (await this.postgres.query('webhook_enqueue_leasing', ENQUEUE_LEASING_SQL, [
      ...params,
      skipSubscriptions,
      skipHosts,
    ])) as LeasingRow[];
    const [{ eventId, matched }] = rows;
    // The event's own columns are the caller's: not read back once per job.
    const leased: ClaimedJob[] =
      rows[0].id === null
        ? []
        : rows.map(({ matched: _matched, ...job }) => ({
            ...job,
            eventType: eventType as WebhookEvent,
            tenant,
            payload,
            trigger: DeliveryTrigger.EVENT,
            traceContext,
            active: true,
            startInMs: null,
            nextSlotInMs: null,
          }));
    return { eventId: Number(eventId), matched, leased };
  }

  /**
   * As insertWithJobs, under the tenant's idempotency `key` (enqueueOnce); undefined when the key's
   * event vanished meanwhile (try again).
   */
  insertKeyed(
    event: StoredEvent,
    key: string,
    bodySha256: Buffer,
    transaction?: TransactionHandle,
  ): Promise<KeyedEvent | undefined> {
    return enqueueOnce(this.runner(transaction), event, key, bodySha256);
  }

  /** New jobs with `trigger` for the given events and one subscription (ENQUEUE_AGAIN_SQL). */
  async enqueueAgain(
    subscription: { id: number; tenant: string },
    eventIds: string[],
    trigger: DeliveryTrigger.RESEND | DeliveryTrigger.RECOVER,
  ): Promise<EnqueueAgainOutcome> {
    const params = [subscription.id, eventIds, trigger, subscription.tenant];
    const [row] = (await this.dataSource.query(ENQUEUE_AGAIN_SQL, params)) as EnqueueAgainOutcome[];
    return row;
  }

  /**
   * A test event and its one job for subscription `subscriptionId` (ENQUEUE_TEST_SQL); `matched` 0
   * when the subscription is gone or of another tenant.
   */
  async insertTest(subscriptionId: number, event: StoredEvent): Promise<WrittenEvent> {
    const { eventType, tenant, timestamp, payload, traceContext } = event;
    const params = [subscriptionId, eventType, tenant, timestamp, payload, traceContext];
    const [row] = (await this.dataSource.query(ENQUEUE_TEST_SQL, params)) as Array<{
      eventId: string;
      matched: number;
    }>;
    return { eventId: Number(row.eventId), matched: row.matched };
  }
}
