import { DeliveryTrigger, WebhookEvent } from '../common/reference/enums';
import type { ClaimedJob } from './webhook-jobs.repository';

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

/**
 * The subscriptions `s` a publish of type $1 for tenant $2 matches: active, of the tenant, listing
 * the type. The tenant is out of the planner's sight (`(SELECT $2::varchar)`), so every tenant's
 * publish gets the same plan (ENQUEUE_SQL in webhook-events.repository.ts says why).
 */
export const MATCHING = `s.tenant = (SELECT $2::varchar) AND s.active AND $1::varchar = ANY (s.events)`;

/**
 * CTE `matching`: the matching subscriptions' ids (and `columns`), locked FOR KEY SHARE (as
 * ENQUEUE_SQL locks them) and read before the event and its jobs are written, so that the statement
 * can count them or number them.
 */
export const matchingCte = (columns = '') => `matching AS (
    SELECT s.id${columns} FROM subscriptions s
    WHERE ${MATCHING}
    ORDER BY s.id
    FOR KEY SHARE OF s
  )`;

/** A lease's five statement parameters, in the order leasingSql numbers them from its `first`. */
export const leaseParams = ({ leaseMs, instanceId, most, skipSubscriptions, skipHosts }: PublishLease) => [
  leaseMs,
  instanceId,
  most,
  skipSubscriptions,
  skipHosts,
];

/**
 * The parts of a publish statement that lease its jobs (webhook_enqueue_leasing,
 * webhook_enqueue_once_leasing), with the lease's parameters numbered from `first` (leaseParams):
 * - `leasable`: whether a matching subscription `s` may have its job leased: not rate-limited (its
 *   slots are the claim's part), nor a subscription or receiver host at its cap here. Those jobs are
 *   written unleased, for a claim.
 * - `jobs`: the CTE inserting one job per row of `matching(id, leasable)` for the row of `event`,
 *   the first `most` leasable ones leased to the instance (the claim's lease, attempts 1). The
 *   insert trigger's NOTIFY stays silent when every job was leased (migration PublishLeasedJobs).
 * - `leased`: the select list and joins that return each leased job with what its delivery needs,
 *   as the claim returns it (WebhookJobsRepository.claimDue), one row each, or one row with a null
 *   `id` when none was; the event's own columns the caller has (leasedJobs).
 */
export function leasingSql(first: number) {
  const [leaseMs, instanceId, most, skipSubscriptions, skipHosts] = [0, 1, 2, 3, 4].map(
    (i) => `$${first + i}`,
  );
  return {
    // IS TRUE: a null receiver_host (no host readable in the URL) against hosts at their cap is left for a claim.
    leasable: `s.max_deliveries_per_second IS NULL AND s.id <> ALL (${skipSubscriptions}::int[])
        AND (s.receiver_host <> ALL (${skipHosts}::text[])) IS TRUE`,
    jobs: `numbered AS (
    SELECT m.id, m.leasable AND row_number() OVER (PARTITION BY m.leasable ORDER BY m.id) <= ${most} AS leased
    FROM matching m
  ), jobs AS (
    INSERT INTO webhook_jobs (event_id, subscription_id, lease_until, leased_by, attempts)
    SELECT event.id, n.id, CASE WHEN n.leased THEN now() + ${leaseMs} * interval '1 millisecond' END,
      CASE WHEN n.leased THEN ${instanceId}::varchar END, CASE WHEN n.leased THEN 1 ELSE 0 END
    FROM event CROSS JOIN numbered n
    ORDER BY n.id
    RETURNING id, subscription_id, leased_by IS NOT NULL AS leased, created_at
  )`,
    leased: {
      columns: `j.id, j.subscription_id AS "subscriptionId", s.url, s.header_name AS "headerName",
    s.header_value_encrypted AS "headerValueEncrypted", s.receiver_host AS host, j.created_at AS "publishedAt",
    s.signing_secret_encrypted AS "signingSecretEncrypted",
    CASE WHEN s.previous_signing_secret_until > now() THEN s.previous_signing_secret_encrypted END
      AS "previousSigningSecretEncrypted"`,
      joins: `LEFT JOIN (jobs j JOIN subscriptions s ON s.id = j.subscription_id) ON j.leased
  ORDER BY j.id`,
    },
  };
}

/** What a row of `leased` reads of a job: the rest is the event's (leasedJobs). */
export type LeasedJobRow = Omit<
  ClaimedJob,
  | 'eventId'
  | 'eventType'
  | 'tenant'
  | 'payload'
  | 'trigger'
  | 'traceContext'
  | 'active'
  | 'startInMs'
  | 'nextSlotInMs'
>;

/** The leased jobs of a publish's rows (leasingSql's `leased`), with the event's own columns. */
export function leasedJobs(
  rows: LeasedJobRow[],
  event: { eventId: string; eventType: string; tenant: string; payload: string; traceContext: string | null },
): ClaimedJob[] {
  if (rows.length === 0 || rows[0].id === null) return [];
  const { eventId, eventType, tenant, payload, traceContext } = event;
  return rows.map((row) => ({
    id: row.id,
    eventId,
    subscriptionId: row.subscriptionId,
    eventType: eventType as WebhookEvent,
    tenant,
    payload,
    url: row.url,
    headerName: row.headerName,
    headerValueEncrypted: row.headerValueEncrypted,
    signingSecretEncrypted: row.signingSecretEncrypted,
    previousSigningSecretEncrypted: row.previousSigningSecretEncrypted,
    host: row.host,
    publishedAt: row.publishedAt,
    trigger: DeliveryTrigger.EVENT,
    traceContext,
    active: true,
    startInMs: null,
    nextSlotInMs: null,
  }));
}
