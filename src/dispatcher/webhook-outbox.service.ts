import { hash } from 'node:crypto';
import { Injectable } from '@nestjs/common';
import { DeliveryTrigger, WebhookEvent } from '../common/reference/enums';
import type { RetentionStatement } from '../database/retention-batch';
import { deleteExpiredEvents } from './event-retention.statement';
import { licenceEventBody } from '../licence-events/licence-event-body';
import type { LicenceEvent, PublishReceipt } from '../licence-events/licence-events';
import { sampleEvent } from '../licence-events/sample-event';
import { tracePublish } from '../tracing/publish-span';
import { checkedIdempotencyKey, IdempotencyKeyReusedException } from './idempotency-key';
import type { KeyedEvent } from './idempotent-enqueue.statement';
import {
  EnqueueAgainOutcome,
  PublishLease,
  TransactionHandle,
  WebhookEventsRepository,
} from './webhook-events.repository';
import type { ClaimedJob } from './webhook-jobs.repository';

export type { EnqueueAgainOutcome, PublishLease, TransactionHandle } from './webhook-events.repository';

/** A publish's receipt, and the jobs it leased to this instance (WebhookOutbox.publishLeasing). */
export interface LeasingReceipt {
  receipt: PublishReceipt;
  leased: ClaimedJob[];
}

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
 * enqueueOnce again should retention delete the key's old event between its two statements (then the
 * key is free, and a new event holding it is too young for retention).
 */
const KEYED_ATTEMPTS = 2;

/** What makes two publications the same event: not the timestamp the service assigns. */
const bodySha256 = (body: EventBody): Buffer =>
  hash('sha256', JSON.stringify([body.eventType, body.tenant, body.licence, body.error]), 'buffer');

/**
 * The transactional outbox: writes an event and its pending deliveries. Used by the dispatcher's
 * event listener (its own one-statement transaction) and directly by callers that want the event
 * to commit with their own changes (pass their EntityManager / QueryRunner).
 */
@Injectable()
export class WebhookOutbox {
  /** Retention's batch over webhook_events (the RetentionService walks it; this module owns the SQL). */
  readonly deleteExpiredEventsBatch: RetentionStatement = deleteExpiredEvents;

  constructor(private readonly events: WebhookEventsRepository) {}

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
    return this.write(event, transaction, idempotencyKey).then(({ receipt }) => receipt);
  }

  /**
   * enqueue without a caller transaction, leasing to this instance the jobs it will deliver at once
   * (`lease`: WebhookWorker.leaseForPublish) as they are written; `leased` are those jobs, as a claim
   * returns them (none for a replayed key).
   */
  publishLeasing(
    event: LicenceEvent,
    { idempotencyKey }: EnqueueOptions,
    lease: PublishLease,
  ): Promise<LeasingReceipt> {
    return this.write(event, undefined, idempotencyKey, lease);
  }

  private write(
    event: LicenceEvent,
    transaction: TransactionHandle | undefined,
    idempotencyKey: string | undefined,
    lease?: PublishLease,
  ): Promise<LeasingReceipt> {
    // The publish span (contract section 12): its context is stored with the event.
    return tracePublish(
      publishAttributes(event.eventType, event.tenant, DeliveryTrigger.EVENT),
      (traceContext) => this.enqueueTraced(event, transaction, idempotencyKey, traceContext, lease),
      ({ receipt }) =>
        receipt.replayed ? undefined : { eventId: receipt.eventId, matched: receipt.matchedSubscriptions },
    );
  }

  private async enqueueTraced(
    event: LicenceEvent,
    transaction: TransactionHandle | undefined,
    idempotencyKey: string | undefined,
    traceContext: string | null,
    lease: PublishLease | undefined,
  ): Promise<LeasingReceipt> {
    const body = licenceEventBody(event);
    if (idempotencyKey !== undefined)
      return this.enqueueOnce(body, transaction, idempotencyKey, traceContext, lease);
    const timestamp = event.timestamp.toISOString();
    const stored = { ...body, timestamp, payload: JSON.stringify(body), traceContext };
    const { eventId, matched, leased } = lease
      ? await this.events.insertLeasing(stored, lease)
      : { ...(await this.events.insertWithJobs(stored, transaction)), leased: [] };
    const receipt = {
      eventId,
      eventType: event.eventType,
      tenant: event.tenant,
      timestamp,
      matchedSubscriptions: matched,
    };
    return { receipt, leased };
  }

  private async enqueueOnce(
    body: EventBody,
    transaction: TransactionHandle | undefined,
    idempotencyKey: string,
    traceContext: string | null,
    lease: PublishLease | undefined,
  ): Promise<LeasingReceipt> {
    const key = checkedIdempotencyKey(idempotencyKey, 'idempotencyKey');
    const bodyHash = bodySha256(body);
    const event = { ...body, payload: JSON.stringify(body), traceContext };
    for (let attempt = 1; attempt <= KEYED_ATTEMPTS; attempt++) {
      const keyed = await this.events.insertKeyed(event, key, bodyHash, transaction, lease);
      if (keyed) return { receipt: receiptOf(body, keyed, key), leased: keyed.leased };
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
    return this.events.enqueueAgain(subscription, eventIds, trigger);
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
        const payload = JSON.stringify(licenceEventBody(event));
        const timestamp = event.timestamp.toISOString();
        const stored = { eventType, tenant: event.tenant, timestamp, payload, traceContext };
        const row = await this.events.insertTest(subscription.id, stored);
        // Nothing will send it: the event row stays unreferenced until retention takes it.
        return row.matched === 1 ? row.eventId : undefined;
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
    timestamp: keyed.timestamp,
    matchedSubscriptions: keyed.matched,
    ...(keyed.replayed ? { replayed: true } : {}),
  };
}
