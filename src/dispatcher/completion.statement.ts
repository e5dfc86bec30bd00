import type { DeliveryStatus, DeliveryTrigger, WebhookEvent } from '../common/reference/enums';
import { ArrayElement, arrayLiteral } from '../database/array-literal';

/** One finished delivery as the worker hands it to CompletionWriter: its job and its attempt's outcome. */
export interface Completion {
  jobId: string;
  eventId: string;
  subscriptionId: number;
  eventType: WebhookEvent;
  /** The event's tenant: the attempt is recorded only while the subscription still belongs to it. */
  tenant: string;
  status: DeliveryStatus;
  httpStatusCode: number | null;
  errorMessage: string | null;
  sentAt: Date;
  trigger: DeliveryTrigger;
  durationMs: number | null;
  responseBody: string | null;
}

/** A receiver answering this asks to get nothing more (Standard Webhooks): its subscription is deactivated. */
const GONE = 410;
/** The record of that answer says what it did (contract section 11). */
export const RECEIVER_GONE_MESSAGE = 'receiver answered 410 Gone: subscription deactivated';

/**
 * A batch's completion, one auto-committed statement over the three tables it writes: the attempts'
 * records (webhook_deliveries, the Deliveries module's history), their jobs' delete (webhook_jobs,
 * the outbox) and the subscriptions' health (subscriptions, the Subscriptions module's; contract
 * section 11). One statement rather than three: no round trip per table, and no transaction left
 * open across them.
 *
 * - The subscriptions are locked first, in id order (FOR NO KEY UPDATE: the lock the health UPDATE
 *   needs; FOR SHARE then UPDATE would deadlock two instances completing one subscription), so a
 *   delete or a tenant move either waits for this statement or is seen by it: records of a
 *   subscription deleted or moved meanwhile are skipped (its history went with it), and so is its
 *   health. Every job of the batch is deleted either way.
 * - Health aggregates the recorded attempts of each subscription in the batch's order (`n`, the
 *   order their outcomes arrived): the failures after its last SUCCESS in the batch (all of them
 *   when none succeeded, added to the stored count), failing_since the earliest sentAt among them
 *   (or the stored one, if earlier, when the stored run goes on: an outcome that arrives late still
 *   falls in a recovery since failing_since), the latest sentAt of any attempt and of a success.
 * - A 410 deactivates the subscription (and the deactivation trigger of migration SubscriptionHealth
 *   tells every instance, so none sends what it claimed ahead for it).
 * - The SET expressions read the locked row as it is now (another instance's completion may have
 *   committed since this statement's snapshot), not the snapshot.
 */
const COMPLETE_SQL = `
  WITH attempts AS (
    SELECT * FROM unnest($1::int[], $2::bigint[], $3::varchar[], $4::varchar[], $5::int[], $6::varchar[],
                         $7::timestamptz[], $8::varchar[], $9::varchar[], $10::int[], $11::text[])
      WITH ORDINALITY
      AS d(subscription_id, event_id, event_type, status, http_status_code, error_message, sent_at, tenant,
           trigger, duration_ms, response_body, n)
  ), current_subscriptions AS MATERIALIZED (
    SELECT s.id, s.tenant FROM subscriptions s
    WHERE s.id = ANY ($1::int[])
    ORDER BY s.id
    FOR NO KEY UPDATE
  ), recorded AS MATERIALIZED (
    SELECT d.* FROM attempts d
    JOIN current_subscriptions s ON s.id = d.subscription_id AND s.tenant = d.tenant
  ), records AS (
    INSERT INTO webhook_deliveries
      (event_id, subscription_id, event_type, status, http_status_code, error_message, sent_at,
       trigger, duration_ms, response_body)
    SELECT event_id, subscription_id, event_type, status, http_status_code, error_message, sent_at,
      trigger, duration_ms, response_body
    FROM recorded
  ), finished AS (
    DELETE FROM webhook_jobs WHERE id = ANY ($12::bigint[])
  ), ordered AS (
    SELECT r.*, max(r.n) FILTER (WHERE r.status = 'SUCCESS') OVER (PARTITION BY r.subscription_id) AS last_success_n
    FROM recorded r
  ), batch_health AS (
    SELECT subscription_id,
      max(sent_at) AS last_attempt_at,
      max(sent_at) FILTER (WHERE status = 'SUCCESS') AS last_success_at,
      max(last_success_n) IS NOT NULL AS succeeded,
      count(*) FILTER (WHERE n > COALESCE(last_success_n, 0)) AS failures,
      min(sent_at) FILTER (WHERE n > COALESCE(last_success_n, 0)) AS failures_since,
      count(*) FILTER (WHERE http_status_code = ${GONE}) > 0 AS gone
    FROM ordered
    GROUP BY subscription_id
  )
  UPDATE subscriptions s SET
    last_attempt_at = GREATEST(s.last_attempt_at, h.last_attempt_at),
    last_success_at = GREATEST(s.last_success_at, h.last_success_at),
    consecutive_failures = CASE WHEN h.succeeded THEN h.failures ELSE s.consecutive_failures + h.failures END,
    failing_since = CASE
      WHEN h.failures = 0 THEN NULL
      WHEN h.succeeded THEN h.failures_since
      ELSE LEAST(s.failing_since, h.failures_since)
    END,
    active = s.active AND NOT h.gone,
    updated_at = CASE WHEN s.active AND h.gone THEN now() ELSE s.updated_at END
  FROM batch_health h
  WHERE s.id = h.subscription_id`;

/** The completion of `batch`, a named statement (parsed once per connection) for CompletionWriter. */
export function completionStatement(batch: Completion[]): { name: string; text: string; values: unknown[] } {
  const col = (pick: (c: Completion) => ArrayElement) => arrayLiteral(batch.map(pick));
  return {
    name: 'webhook_complete',
    text: COMPLETE_SQL,
    values: [
      col((c) => c.subscriptionId),
      col((c) => c.eventId),
      col((c) => c.eventType),
      col((c) => c.status),
      col((c) => c.httpStatusCode),
      col((c) => (c.httpStatusCode === GONE ? RECEIVER_GONE_MESSAGE : c.errorMessage)),
      col((c) => c.sentAt),
      col((c) => c.tenant),
      col((c) => c.trigger),
      col((c) => c.durationMs),
      col((c) => c.responseBody),
      col((c) => c.jobId),
    ],
  };
}
