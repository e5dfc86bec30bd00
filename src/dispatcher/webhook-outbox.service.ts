import { Injectable } from '@nestjs/common';
import { plainToInstance } from 'class-transformer';
import { validateSync } from 'class-validator';
import { DataSource, EntityManager, QueryRunner } from 'typeorm';
import { ValidationFailedException } from '../common/errors/validation-failed.exception';
import { WebhookEvent } from '../common/reference/enums';
import { LicenceDto, LicenceErrorDto } from './dto/licence.dto';
import type { LicenceEvent, PublishReceipt } from './events/licence-events';
import type { LicenceErrorPayload, LicencePayload } from './events/licence-payloads';

/** Anything that runs SQL inside the caller's transaction: an EntityManager or a QueryRunner. */
export type TransactionHandle = Pick<EntityManager, 'query'> | Pick<QueryRunner, 'query'>;

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
    INSERT INTO webhook_events (event_type, tenant, occurred_at, payload)
    VALUES ($1, $2, $3, $4::json)
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

function check<T extends object>(cls: new () => T, value: unknown, field: string): T {
  if (typeof value !== 'object' || value === null) {
    throw new ValidationFailedException([{ field, message: `${field} is required` }]);
  }
  const instance = plainToInstance(cls, value);
  const errors = validateSync(instance, {
    whitelist: true,
    forbidNonWhitelisted: true,
    forbidUnknownValues: true,
  });
  if (errors.length > 0) {
    const failed = ValidationFailedException.fromValidationErrors(errors).fieldErrors;
    throw new ValidationFailedException(failed.map((e) => ({ ...e, field: `${field}.${e.field}` })));
  }
  return instance;
}

/** Exactly the spec's fields, in the spec's order: nothing else reaches a receiver. */
function licenceBody(l: LicencePayload): LicencePayload {
  return {
    code: l.code,
    clientId: l.clientId,
    planId: l.planId,
    name: l.name,
    email: l.email,
    phoneNumber: l.phoneNumber,
    status: l.status,
    maxRedemptions: l.maxRedemptions,
    pricing: l.pricing,
  };
}

const errorBody = (e: LicenceErrorPayload): LicenceErrorPayload => ({ message: e.message, type: e.type });

/**
 * The transactional outbox: writes an event and its pending deliveries. Used by the dispatcher's
 * event listener (its own one-statement transaction) and directly by callers that want the event
 * to commit with their own changes (pass their EntityManager / QueryRunner).
 */
@Injectable()
export class WebhookOutbox {
  constructor(private readonly dataSource: DataSource) {}

  /**
   * Validates the event (contract section 7) and enqueues it. With `transaction`, the rows are part
   * of the caller's transaction: nothing is delivered unless it commits, and delivery starts at
   * commit (NOTIFY). Without, they are committed when the promise resolves.
   */
  async enqueue(event: LicenceEvent, transaction?: TransactionHandle): Promise<PublishReceipt> {
    const body = this.payload(event);
    const timestamp = event.timestamp.toISOString();
    const params = [event.eventType, event.tenant, timestamp, JSON.stringify(body)];
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

  /** The body every receiver gets: exactly { eventType, timestamp, tenant, licence, error }. */
  private payload(event: LicenceEvent) {
    if (!(event.timestamp instanceof Date) || Number.isNaN(event.timestamp.getTime())) {
      throw new ValidationFailedException([
        { field: 'timestamp', message: 'timestamp must be a valid date' },
      ]);
    }
    if (typeof event.tenant !== 'string' || event.tenant.length < 1 || event.tenant.length > 255) {
      throw new ValidationFailedException([
        { field: 'tenant', message: 'tenant must be 1 to 255 characters' },
      ]);
    }
    switch (event.eventType) {
      case WebhookEvent.LICENCE_CREATED_SUCCESS:
        return {
          eventType: event.eventType,
          timestamp: event.timestamp.toISOString(),
          tenant: event.tenant,
          licence: licenceBody(check(LicenceDto, event.licence, 'licence')),
          error: null,
        };
      case WebhookEvent.LICENCE_CREATED_FAILED:
        return {
          eventType: event.eventType,
          timestamp: event.timestamp.toISOString(),
          tenant: event.tenant,
          licence: null,
          error: errorBody(check(LicenceErrorDto, event.error, 'error')),
        };
      default:
        throw new ValidationFailedException([
          {
            field: 'eventType',
            message: `unknown event type ${String((event as { eventType: unknown }).eventType)}`,
          },
        ]);
    }
  }
}
