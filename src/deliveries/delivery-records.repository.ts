import { Injectable } from '@nestjs/common';
import type { DeliveryStatus, DeliveryTrigger, WebhookEvent } from '../common/reference/enums';
import type { RetentionStatement } from '../database/retention-batch';
import { deleteExpiredDeliveries } from './delivery-retention.statement';

/** The outcome of one attempt, as the dispatcher hands it over. */
export interface DeliveryAttempt {
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

/**
 * Records of a subscription deleted meanwhile are skipped (its history went with it), and so are
 * those of a subscription moved to another tenant meanwhile: the subscriptions are read FOR SHARE,
 * in id order, before anything else, so a delete or a move either waits for this statement or is
 * seen by it, and the record and the subscription's removal never cross (a delete takes the
 * subscription's row lock before its jobs'). Reads `subscriptions` (the Subscriptions module's) in
 * the same statement: a second round trip per batch otherwise. `alongside` is the caller's own
 * common table expressions (each ending in a comma), run in this statement after the INSERT.
 */
const recordAttemptsSql = (alongside: string) => `
  WITH ${alongside}
  attempts AS (
    SELECT * FROM unnest($1::bigint[], $2::int[], $3::varchar[], $4::varchar[], $5::int[], $6::varchar[],
                         $7::timestamptz[], $8::varchar[], $9::varchar[], $10::int[], $11::text[])
      AS d(event_id, subscription_id, event_type, status, http_status_code, error_message, sent_at, tenant,
           trigger, duration_ms, response_body)
  ), current_subscriptions AS MATERIALIZED (
    SELECT s.id, s.tenant FROM subscriptions s
    WHERE s.id = ANY ($2::int[])
    ORDER BY s.id
    FOR SHARE
  )
  INSERT INTO webhook_deliveries
    (event_id, subscription_id, event_type, status, http_status_code, error_message, sent_at,
     trigger, duration_ms, response_body)
  SELECT d.event_id, d.subscription_id, d.event_type, d.status, d.http_status_code, d.error_message, d.sent_at,
    d.trigger, d.duration_ms, d.response_body
  FROM attempts d
  JOIN current_subscriptions s ON s.id = d.subscription_id AND s.tenant = d.tenant`;

/** Parameters the record statement takes ($1 to $11): a composing caller numbers its own after them. */
export const RECORD_ATTEMPTS_PARAMS = 11;

/** A statement that records attempts along with the caller's own writes, in one round trip. */
export interface RecordingStatement {
  text: string;
  values: unknown[];
}

/** The write side of the delivery history (table `webhook_deliveries`, owned by this module). */
@Injectable()
export class DeliveryRecords {
  /** Retention's batch over this table (the RetentionService walks it; this module owns the SQL). */
  readonly deleteExpiredBatch: RetentionStatement = deleteExpiredDeliveries;

  /**
   * The statement writing one record per attempt of `batch`, with `alongside` (common table
   * expressions of the caller's, parameters from RECORD_ATTEMPTS_PARAMS + 1, `values` after ours)
   * in the same statement: the caller runs it (CompletionWriter: a batch's completion is one
   * auto-committed statement).
   */
  recordAttempts(batch: DeliveryAttempt[], alongside: RecordingStatement): RecordingStatement {
    const col = <T>(pick: (a: DeliveryAttempt) => T) => batch.map(pick);
    return {
      text: recordAttemptsSql(alongside.text),
      values: [
        col((a) => a.eventId),
        col((a) => a.subscriptionId),
        col((a) => a.eventType),
        col((a) => a.status),
        col((a) => a.httpStatusCode),
        col((a) => a.errorMessage),
        col((a) => a.sentAt),
        col((a) => a.tenant),
        col((a) => a.trigger),
        col((a) => a.durationMs),
        col((a) => a.responseBody),
        ...alongside.values,
      ],
    };
  }
}
