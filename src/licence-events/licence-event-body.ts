import { plainToInstance } from 'class-transformer';
import { validateSync } from 'class-validator';
import { ValidationFailedException } from '../common/errors/validation-failed.exception';
import { WebhookEvent } from '../common/reference/enums';
import { LicenceDto, LicenceErrorDto } from './licence.dto';
import type { LicenceEvent } from './licence-events';
import type { LicenceErrorPayload, LicencePayload } from './licence-payloads';

/** Parts of events already validated by the global ValidationPipe, under the same rules as `check`. */
const validatedByPipe = new WeakSet<object>();

/**
 * Marks a licence or error the request's ValidationPipe has validated (a nested DTO of the request
 * body), so that publishing it does not validate it a second time; pass it on unchanged.
 */
export function validatedPart<T extends LicenceDto | LicenceErrorDto>(part: T): T {
  validatedByPipe.add(part);
  return part;
}

/** A part of the event (licence, error) as its DTO validates it; each error names its field under `field`. */
function check<T extends object>(cls: new () => T, value: unknown, field: string): T {
  if (value instanceof cls && validatedByPipe.has(value)) return value;
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
 * The body every receiver gets: exactly { eventType, timestamp, tenant, licence, error }, the event
 * validated first (contract section 7).
 */
export function licenceEventBody(event: LicenceEvent) {
  if (!(event.timestamp instanceof Date) || Number.isNaN(event.timestamp.getTime())) {
    throw new ValidationFailedException([{ field: 'timestamp', message: 'timestamp must be a valid date' }]);
  }
  if (typeof event.tenant !== 'string' || event.tenant.length < 1 || event.tenant.length > 255) {
    throw new ValidationFailedException([{ field: 'tenant', message: 'tenant must be 1 to 255 characters' }]);
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
