import { createHash } from 'node:crypto';
import { Injectable } from '@nestjs/common';
import { DataSource, EntityManager, QueryRunner } from 'typeorm';
import { DeliveryTrigger, WebhookEvent } from '../common/reference/enums';
import type { RetentionStatement } from '../database/retention-batch';
import { deleteExpiredEvents } from './event-retention.statement';
import { licenceEventBody } from '../licence-events/licence-event-body';
import type { LicenceEvent, PublishReceipt } from '../licence-events/licence-events';
import { sampleEvent } from '../licence-events/sample-event';
import { tracePublish } from '../tracing/publish-span';
import { checkedIdempotencyKey, IdempotencyKeyReusedException } from './idempotency-key';
import { enqueueOnce, KeyedEvent } from './idempotent-enqueue.statement';

/** What enqueueAgain did, and what it saw: see ENQUEUE_AGAIN_SQL. */
export interface EnqueueAgainOutcome {
  enqueued: number;
  active: boolean | null;
  events: number;
}

/** Anything that runs SQL inside the caller's transaction: an EntityManager or a QueryRunner. */
export type TransactionHandle = Pick<EntityManager, 'query'> | Pick<QueryRunner, 'query'>;

/** An event's validated body, as every receiver gets it. */
type EventBody = ReturnType<typeof licenceEventBody>;

export interface EnqueueOptions {
  /**
   * Idempotent publish (contract section 11): within retention, the tenant's first event with this
   * key is the only one; the same event again answers its receipt (`replayed`), another is a 409.
   * In a caller's REPEATABLE READ or SERIALIZABLE transaction, a key taken by one that committed
   * after its snapshot is PostgreSQL's serialization failure: retry that transaction.
   */
  idempotencyKey?: string;
}

/**
 * enqueueOnce again after a conflict with an event committed meanwhile (the second run reads it), or
 * once more should retention delete that event in between (then the key is free).
 */
const KEYED_ATTEMPTS = 3;

/** What makes two publications the same event: not the timestamp the service assigns. */
const bodySha256 = (body: EventBody): Buffer =>
  createHash('sha256')
    .update(JSON.stringify([body.eventType, body.tenant, body.licence, body.error]))
    .digest();

/**
 * One statement, so the event and its jobs commit together (or not at all) even without an
 * explicit transaction: the event row, then one job per subscription matching at this moment
 * (active, same tenant, listing the event type; served by IDX_subscriptions_tenant_active_id).
 * The statement trigger on webhook_jobs queues NOTIFY webhook_jobs, sent at commit.
 *
 * FOR KEY SHARE (the lock the foreign key check takes anyway) waits for a concurrent DELETE of a
 * matching subscription, or a move to another tenant (SubscriptionsService.replace locks it FOR
 * UPDATE), and then, at READ COMMITTED, skips the deleted row, or re-checks the moved one against
 * the WHERE clause: a publish racing them neither fails on the foreign key nor queues the old
 * tenant's event for the new one.
 */
const ENQUEUE_SQL = `
  WITH event AS (
    INSERT INTO webhook_events (event_type, tenant, occurred_at, payload, trace_context)
    VALUES ($1, $2, $3, $4::json, $5)
    RETURNING id
  ), jobs AS (
    INSERT INTO webhook_jobs (event_id, subscription_id)
    SELECT event.id, s.id
    FROM event CROSS JOIN subscriptions s
    WHERE s.tenant = $2 AND s.active AND $1::varchar = ANY (s.events)
    ORDER BY s.id
    FOR KEY SHARE OF s
    RETURNING 1
  )
  SELECT event.id AS "eventId", (SELECT count(*) FROM jobs)::int AS "matched" FROM event`;

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
 * The transactional outbox: writes an event and its pending deliveries. Used by the dispatcher's
 * event listener (its own one-statement transaction) and directly by callers that want the event
 * to commit with their own changes (pass their EntityManager / QueryRunner).
 */
@Injectable()
export class WebhookOutbox {
  /** Retention's batch over webhook_events (the RetentionService walks it; this module owns the SQL). */
  readonly deleteExpiredEventsBatch: RetentionStatement = deleteExpiredEvents;

  constructor(private readonly dataSource: DataSource) {}

  /**
   * Validates the event (contract section 7) and enqueues it. With `transaction`, the rows are part
   * of the caller's transaction: nothing is delivered unless it commits, and delivery starts at
   * commit (NOTIFY). Without, they are committed when the promise resolves. With an idempotency
   * key, see EnqueueOptions; a key taken by a transaction still open waits for it to end.
   */
  enqueue(
    event: LicenceEvent,
    transaction?: TransactionHandle,
    { idempotencyKey }: EnqueueOptions = {},
  ): Promise<PublishReceipt> {
    // The publish span (contract section 12): its context is stored with the event.
    return tracePublish(
      publishAttributes(event.eventType, event.tenant, DeliveryTrigger.EVENT),
      (traceContext) => this.enqueueTraced(event, transaction, idempotencyKey, traceContext),
      (receipt) =>
        receipt.replayed ? undefined : { eventId: receipt.eventId, matched: receipt.matchedSubscriptions },
    );
  }

  private async enqueueTraced(
    event: LicenceEvent,
    transaction: TransactionHandle | undefined,
    idempotencyKey: string | undefined,
    traceContext: string | null,
  ): Promise<PublishReceipt> {
    const body = licenceEventBody(event);
    if (idempotencyKey !== undefined)
      return this.enqueueOnce(body, transaction ?? this.dataSource, idempotencyKey, traceContext);
    const timestamp = event.timestamp.toISOString();
    const params = [event.eventType, event.tenant, timestamp, JSON.stringify(body), traceContext];
    const rows = (await (transaction ?? this.dataSource).query(ENQUEUE_SQL, params)) as Array<{
      eventId: string;
      matched: number;
    }>;
    return {
      eventId: Number(rows[0].eventId),
      eventType: event.eventType,
      tenant: event.tenant,
      timestamp,
      matchedSubscriptions: rows[0].matched,
    };
  }

  private async enqueueOnce(
    body: EventBody,
    db: TransactionHandle | DataSource,
    idempotencyKey: string,
    traceContext: string | null,
  ): Promise<PublishReceipt> {
    const key = checkedIdempotencyKey(idempotencyKey, 'idempotencyKey');
    const hash = bodySha256(body);
    const event = { ...body, payload: JSON.stringify(body), traceContext };
    for (let attempt = 1; attempt <= KEYED_ATTEMPTS; attempt++) {
      const keyed = await enqueueOnce(db, event, key, hash);
      if (keyed) return receiptOf(body, keyed, key);
    }
    throw new Error(`idempotency key of tenant ${body.tenant}: its event vanished ${KEYED_ATTEMPTS} times`);
  }

  /**
   * Sends the given events again to one subscription (resend, recover: contract section 9), as new
   * jobs with `trigger`; committed when the promise resolves. Returns how many were enqueued (none
   * for a subscription no longer active, or an event already pending for it) and, read in the same
   * statement, whether the subscription is active (null: gone or moved to another tenant) and how
   * many of the events exist.
   */
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
   * A sample event of `eventType` for the subscription's tenant, delivered to that subscription
   * only (trigger TEST); committed when the promise resolves. Returns its id, or undefined when the
   * subscription is gone (or moved to another tenant) meanwhile.
   */
  enqueueTest(
    subscription: { id: number; tenant: string },
    eventType: WebhookEvent,
  ): Promise<number | undefined> {
    const event = sampleEvent(eventType, subscription.tenant);
    return tracePublish(
      publishAttributes(eventType, subscription.tenant, DeliveryTrigger.TEST),
      async (traceContext) => {
        const body = JSON.stringify(licenceEventBody(event));
        const timestamp = event.timestamp.toISOString();
        const params = [subscription.id, event.eventType, event.tenant, timestamp, body, traceContext];
        const [row] = (await this.dataSource.query(ENQUEUE_TEST_SQL, params)) as Array<{
          eventId: string;
          matched: number;
        }>;
        // Nothing will send it: the event row stays unreferenced until retention takes it.
        return row.matched === 1 ? Number(row.eventId) : undefined;
      },
      (eventId) => (eventId === undefined ? undefined : { eventId, matched: 1 }),
    );
  }
}

/** What the publish span says of an event before it is written. */
const publishAttributes = (eventType: string, tenant: string, trigger: DeliveryTrigger) => ({
  'webhook.event_type': eventType,
  'webhook.tenant': tenant,
  'webhook.trigger': trigger,
});

/** The receipt the key's first publication answered; a 409 when the key holds another event. */
function receiptOf(body: EventBody, keyed: KeyedEvent, key: string): PublishReceipt {
  if (!keyed.sameBody) throw new IdempotencyKeyReusedException(key);
  return {
    eventId: Number(keyed.eventId),
    eventType: body.eventType,
    tenant: body.tenant,
    timestamp: keyed.occurredAt.toISOString(),
    matchedSubscriptions: keyed.matched,
    ...(keyed.replayed ? { replayed: true } : {}),
  };
}
