import { ApiProperty } from '@nestjs/swagger';
import { ApiClosedSchema } from '../common/openapi/closed-schemas';
import { ISO_DATE_TIME } from '../common/reference/formats';
import { MAX_STRING_LENGTH, WebhookEvent } from '../common/reference/enums';
import { LicenceDto, LicenceErrorDto } from './licence.dto';

/*
 * The delivery body of each event type (contract section 6), as decorated classes: the one
 * definition the OpenAPI document and the event-type catalogue (GET /webhooks/event-types) are both
 * generated from.
 */

export const ApiEventType = (eventTypes: WebhookEvent[]) =>
  ApiProperty({ type: String, enum: eventTypes, description: 'The event kind', example: eventTypes[0] });

export const ApiEventTimestamp = () =>
  ApiProperty({
    type: String,
    format: 'date-time',
    pattern: ISO_DATE_TIME.source,
    description:
      "The event's time (UTC, YYYY-MM-DDTHH:mm:ss.sssZ), identical in every copy; check it against replays",
    example: '2026-11-21T10:00:00.000Z',
  });

export const ApiEventTenant = () =>
  ApiProperty({
    type: String,
    minLength: 1,
    maxLength: MAX_STRING_LENGTH,
    description: 'Tenant identifier; check it against the tenants you expect',
    example: 'acme',
  });

/** A member that is always null for this event type (OpenAPI 3.0 has no `null` type). */
const ApiAlwaysNull = (description: string) =>
  ApiProperty({ type: 'object', nullable: true, enum: [null], additionalProperties: false, description });

@ApiClosedSchema({
  name: 'LicenceCreatedSuccessEvent',
  description: 'A licence was created and processed successfully: the licence, and error null',
})
export class LicenceCreatedSuccessBody {
  @ApiEventType([WebhookEvent.LICENCE_CREATED_SUCCESS])
  eventType: WebhookEvent.LICENCE_CREATED_SUCCESS;
  @ApiEventTimestamp()
  timestamp: string;
  @ApiEventTenant()
  tenant: string;
  @ApiProperty({ type: LicenceDto, description: 'The licence that was created' })
  licence: LicenceDto;
  @ApiAlwaysNull('Always null on LICENCE_CREATED_SUCCESS')
  error: null;
}

@ApiClosedSchema({
  name: 'LicenceCreatedFailedEvent',
  description: 'Creating or processing a licence failed: the error, and licence null',
})
export class LicenceCreatedFailedBody {
  @ApiEventType([WebhookEvent.LICENCE_CREATED_FAILED])
  eventType: WebhookEvent.LICENCE_CREATED_FAILED;
  @ApiEventTimestamp()
  timestamp: string;
  @ApiEventTenant()
  tenant: string;
  @ApiAlwaysNull('Always null on LICENCE_CREATED_FAILED')
  licence: null;
  @ApiProperty({ type: LicenceErrorDto, description: 'Why it failed' })
  error: LicenceErrorDto;
}

/** The body class of each event type (every webhook event has one; a missing one does not compile). */
export const LICENCE_EVENT_BODIES = {
  [WebhookEvent.LICENCE_CREATED_SUCCESS]: LicenceCreatedSuccessBody,
  [WebhookEvent.LICENCE_CREATED_FAILED]: LicenceCreatedFailedBody,
} as const satisfies Record<WebhookEvent, new () => object>;
