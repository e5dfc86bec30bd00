import {
  LeasedJobRow,
  leasedJobs,
  leaseParams,
  leasingSql,
  matchingCte,
  PublishLease,
} from './publish-lease.sql';
import type { ClaimedJob } from './webhook-jobs.repository';

/**
 * Runs a statement where the event goes: the pool (as a named prepared statement) or the caller's
 * transaction (an EntityManager or QueryRunner). Returns its rows.
 */
export type RunStatement = (name: string, text: string, values: unknown[]) => Promise<unknown[]>;

/** The event that holds a tenant's idempotency key, as its first publication answered. */
export interface KeyedEvent {
  eventId: string;
  /** The event's occurred_at, as the receipt gives it (ISO 8601, UTC). */
  timestamp: string;
  matched: number;
  /** True when this call found the event rather than wrote it. */
  replayed: boolean;
  /** The stored body hash is the one given: a replay, not a reuse of the key for another event. */
  sameBody: boolean;
  /** The jobs this call leased to its instance as it wrote them (none unless it wrote the event). */
  leased: ClaimedJob[];
}

/** The keyed event row, unless the tenant's key is taken, as CTE `event`. */
const EVENT_KEYED = `event AS (
    INSERT INTO webhook_events
      (event_type, tenant, occurred_at, payload, idempotency_key, body_sha256, matched_subscriptions,
        trace_context)
    SELECT $1::varchar, $2::varchar, $3::timestamptz, $4::json, $5::varchar, $6::bytea, count(*)::int,
      $7::varchar
    FROM matching
    ON CONFLICT (tenant, idempotency_key) WHERE idempotency_key IS NOT NULL DO NOTHING
    RETURNING id, matched_subscriptions
  )`;

/**
 * ENQUEUE_SQL (webhook-events.repository.ts) with an idempotency key: the event row carries the key,
 * the body's hash and the matched count, and ON CONFLICT on UQ_webhook_events_tenant_idempotency_key
 * writes no event and no job when the tenant's key is taken (then it returns no row). The
 * subscriptions are locked and counted first so the count stored with the event is the number of
 * jobs written; the tenant is hidden from the planner as in ENQUEUE_SQL (one plan for every tenant).
 */
const ENQUEUE_ONCE_SQL = `
  WITH ${matchingCte()}, ${EVENT_KEYED}, jobs AS (
    INSERT INTO webhook_jobs (event_id, subscription_id)
    SELECT event.id, matching.id FROM event CROSS JOIN matching
  )
  SELECT id AS "eventId", matched_subscriptions AS matched FROM event`;

const LEASING = leasingSql(8);

/**
 * ENQUEUE_ONCE_SQL, leasing to this instance the jobs it delivers at once as they are written
 * (PublishLease in $8 to $12: publish-lease.sql.ts) and returning those; no row when the key is taken.
 */
const ENQUEUE_ONCE_LEASING_SQL = `
  WITH ${matchingCte(`, ${LEASING.leasable} AS leasable`)}, ${EVENT_KEYED}, ${LEASING.jobs}
  SELECT event.id AS "eventId", event.matched_subscriptions AS matched, ${LEASING.leased.columns}
  FROM event
  ${LEASING.leased.joins}`;

/** The tenant's event holding the key, and whether it was published with the given body hash. */
const KEY_HOLDER_SQL = `
  SELECT id AS "eventId", occurred_at AS "occurredAt", matched_subscriptions AS matched,
    body_sha256 = $3::bytea AS "sameBody"
  FROM webhook_events
  WHERE tenant = $1 AND idempotency_key = $2`;

/**
 * Writes the event and its jobs unless the tenant's key is taken, leasing to this instance those it
 * delivers at once when given a `lease` (on the pool only); then returns the one holding it, read by
 * a statement of its own, only then: its snapshot sees a holder committed while ON CONFLICT waited
 * for it, which the first statement's cannot. Undefined when the holder was deleted (by retention)
 * in between: run it again, to take the key.
 */
export async function enqueueOnce(
  run: RunStatement,
  event: {
    eventType: string;
    tenant: string;
    timestamp: string;
    payload: string;
    /** The publish span's `traceparent` (contract section 12), or null. */
    traceContext: string | null;
  },
  key: string,
  bodySha256: Buffer,
  lease?: PublishLease,
): Promise<KeyedEvent | undefined> {
  const { eventType, tenant, timestamp, payload, traceContext } = event;
  const params = [eventType, tenant, timestamp, payload, key, bodySha256, traceContext];
  // Written: its occurred_at is the timestamp given (not read back, parsed and formatted again).
  type Written = Pick<KeyedEvent, 'eventId' | 'matched'> & LeasedJobRow;
  const [name, text, values] = lease
    ? ['webhook_enqueue_once_leasing', ENQUEUE_ONCE_LEASING_SQL, [...params, ...leaseParams(lease)]]
    : ['webhook_enqueue_once', ENQUEUE_ONCE_SQL, params];
  const rows = (await run(name, text, values)) as Written[];
  if (rows.length > 0) {
    const [{ eventId, matched }] = rows;
    const leased = lease ? leasedJobs(rows, { ...event, eventId }) : [];
    return { eventId, matched, timestamp, replayed: false, sameBody: true, leased };
  }
  type Holder = Pick<KeyedEvent, 'eventId' | 'matched' | 'sameBody'> & { occurredAt: Date };
  const [holder] = (await run('webhook_key_holder', KEY_HOLDER_SQL, [tenant, key, bodySha256])) as Holder[];
  if (!holder) return undefined;
  const { occurredAt, ...found } = holder;
  return { ...found, timestamp: occurredAt.toISOString(), replayed: true, leased: [] };
}
