import { Injectable } from '@nestjs/common';
import type { PoolClient } from 'pg';
import type { DeliveryStatus, DeliveryTrigger, WebhookEvent } from '../common/reference/enums';

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
 * Records of a subscription deleted meanwhile are skipped (its history went with it: a delete
 * racing this statement makes it fail on the foreign key, and the caller's retry skips them); so
 * are those of a subscription moved to another tenant meanwhile. Reads `subscriptions` (the
 * Subscriptions module's) in the same statement: a second round trip per batch otherwise.
 */
const RECORD_ATTEMPTS_SQL = `
  INSERT INTO webhook_deliveries
    (event_id, subscription_id, event_type, status, http_status_code, error_message, sent_at,
     trigger, duration_ms, response_body)
  SELECT d.event_id, d.subscription_id, d.event_type, d.status, d.http_status_code, d.error_message, d.sent_at,
    d.trigger, d.duration_ms, d.response_body
  FROM unnest($1::bigint[], $2::int[], $3::varchar[], $4::varchar[], $5::int[], $6::varchar[],
              $7::timestamptz[], $8::varchar[], $9::varchar[], $10::int[], $11::text[])
    AS d(event_id, subscription_id, event_type, status, http_status_code, error_message, sent_at, tenant,
         trigger, duration_ms, response_body)
  WHERE EXISTS (SELECT 1 FROM subscriptions s WHERE s.id = d.subscription_id AND s.tenant = d.tenant)`;

/** The write side of the delivery history (table `webhook_deliveries`, owned by this module). */
@Injectable()
export class DeliveryRecords {
  /** Writes one record per attempt, on the caller's client (inside its transaction). */
  async recordAttempts(client: PoolClient, batch: DeliveryAttempt[]): Promise<void> {
    const col = <T>(pick: (a: DeliveryAttempt) => T) => batch.map(pick);
    await client.query({
      name: 'webhook_deliveries_record_attempts',
      text: RECORD_ATTEMPTS_SQL,
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
      ],
    });
  }
}
