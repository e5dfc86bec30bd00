import { applyDecorators } from '@nestjs/common';
import { ApiCallbacks, ApiExtraModels, ApiProperty, ApiSchema } from '@nestjs/swagger';
import { WebhookEvent } from '../common/reference/enums';
import { LicenceDto, LicenceErrorDto } from '../dispatcher/dto/licence.dto';

/**
 * The body every receiver gets (spec, Webhook event payload; contract section 6): exactly these
 * five fields, the absent one of `licence` and `error` null.
 */
@ApiSchema({
  name: 'LicenceEventPayload',
  description:
    'Body of every delivery: exactly eventType, timestamp, tenant, licence and error. ' +
    'The same event may arrive more than once, always with the same timestamp: ' +
    'eventType + timestamp + licence.code is the duplicate key.',
})
export class LicenceEventPayloadSchema {
  @ApiProperty({
    enum: WebhookEvent,
    enumName: 'WebhookEvent',
    description: 'The event kind',
    example: WebhookEvent.LICENCE_CREATED_SUCCESS,
  })
  eventType: WebhookEvent;

  @ApiProperty({
    type: String,
    format: 'date-time',
    description:
      "The event's time (UTC, YYYY-MM-DDTHH:mm:ss.sssZ), identical in every copy; check it against replays",
    example: '2026-11-21T10:00:00.000Z',
  })
  timestamp: string;

  @ApiProperty({
    type: String,
    description: 'Tenant identifier; check it against the tenants you expect',
    example: 'acme',
  })
  tenant: string;

  @ApiProperty({
    type: LicenceDto,
    nullable: true,
    description: 'The licence on LICENCE_CREATED_SUCCESS; null on LICENCE_CREATED_FAILED',
  })
  licence: LicenceDto | null;

  @ApiProperty({
    type: LicenceErrorDto,
    nullable: true,
    description: 'The error on LICENCE_CREATED_FAILED; null on LICENCE_CREATED_SUCCESS',
  })
  error: LicenceErrorDto | null;
}

export const SUCCESS_EVENT_EXAMPLE = {
  eventType: WebhookEvent.LICENCE_CREATED_SUCCESS,
  timestamp: '2026-11-21T10:00:00.000Z',
  tenant: 'acme',
  licence: {
    code: 'LIC-2026-000123',
    clientId: 7,
    planId: 3,
    name: 'Maria Silva',
    email: 'maria@example.com',
    phoneNumber: '11987654321',
    status: 'CREATED',
    maxRedemptions: 5,
    pricing: 19.9,
  },
  error: null,
};

export const FAILED_EVENT_EXAMPLE = {
  eventType: WebhookEvent.LICENCE_CREATED_FAILED,
  timestamp: '2026-11-21T10:05:00.000Z',
  tenant: 'acme',
  licence: null,
  error: { message: 'Plan 3 is not available for client 7', type: 'PlanNotAvailableException' },
};

/** Name of the callback on POST /webhooks/subscriptions (openapi.ts completes it). */
export const LICENCE_EVENT_CALLBACK = 'licenceEvent';

/**
 * Marks the operation that registers a receiver URL: the document gets a `licenceEvent` callback
 * keyed by the `url` of the request body, whose request is LicenceEventPayload. @ApiCallbacks only
 * writes the skeleton; setupOpenApi (openapi.ts) fills in headers, examples and responses.
 */
export const ApiLicenceEventCallback = () =>
  applyDecorators(
    ApiExtraModels(LicenceEventPayloadSchema),
    ApiCallbacks({
      name: LICENCE_EVENT_CALLBACK,
      callbackUrl: '{$request.body#/url}',
      method: 'post',
      requestBody: { type: LicenceEventPayloadSchema },
      expectedResponse: { status: 200, description: 'Any 2xx within 30 s: the delivery is SUCCESS' },
    }),
  );
