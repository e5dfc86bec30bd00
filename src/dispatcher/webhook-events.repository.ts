import { Injectable } from '@nestjs/common';
import { DataSource, EntityManager, QueryRunner } from 'typeorm';
import { DeliveryTrigger } from '../common/reference/enums';
import { Postgres } from '../database/postgres';
import { enqueueOnce, KeyedEvent, RunStatement } from './idempotent-enqueue.statement';
import {
  LeasedJobRow,
  leasedJobs,
  leaseParams,
  leasingSql,
  MATCHING,
  matchingCte,
  PublishLease,
} from './publish-lease.sql';
import type { ClaimedJob } from './webhook-jobs.repository';

export type { PublishLease } from './publish-lease.sql';

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

/** The event written, and the jobs it leased to this instance (as a claim returns them). */
export interface WrittenLeasedEvent extends WrittenEvent {
  leased: ClaimedJob[];
}

const LEASING = leasingSql(6);

/**
 * ENQUEUE_SQL, leasing to this instance the jobs it delivers at once as they are written (PublishLease
 * in $6 to $10: publish-lease.sql.ts) and returning those; the subscriptions locked and read first
 * (matchingCte), so that the jobs can be numbered.
 */
const ENQUEUE_LEASING_SQL = `
  WITH ${EVENT_ROW}, ${matchingCte(`, ${LEASING.leasable} AS leasable`)}, ${LEASING.jobs}
  SELECT event.id AS "eventId", (SELECT count(*) FROM jobs)::int AS "matched", ${LEASING.leased.columns}
  FROM event
  ${LEASING.leased.joins}`;

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
    const params = [eventType, tenant, timestamp, payload, traceContext, ...leaseParams(lease)];
    type Row = LeasedJobRow & { eventId: string; matched: number };
    const rows = (await this.postgres.query('webhook_enqueue_leasing', ENQUEUE_LEASING_SQL, params)) as Row[];
    const [{ eventId, matched }] = rows;
    return { eventId: Number(eventId), matched, leased: leasedJobs(rows, { ...event, eventId }) };
  }

  /**
   * As insertWithJobs, or insertLeasing given a `lease` (never in a transaction), under the tenant's
   * idempotency `key` (enqueueOnce); undefined when the key's event vanished meanwhile (try again).
   */
  insertKeyed(
    event: StoredEvent,
    key: string,
    bodySha256: Buffer,
    transaction?: TransactionHandle,
    lease?: PublishLease,
  ): Promise<KeyedEvent | undefined> {
    return enqueueOnce(this.runner(transaction), event, key, bodySha256, lease);
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
