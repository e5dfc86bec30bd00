import { ApiProperty, ApiSchema, getSchemaPath } from '@nestjs/swagger';
import type { PathItemObject, RequestBodyObject, ResponsesObject } from '@nestjs/swagger';
import { ApiCallbackContent, LICENCE_EVENT_CALLBACK } from '../common/openapi/callbacks';
import { WebhookEvent } from '../common/reference/enums';
import { LicenceDto, LicenceErrorDto } from './licence.dto';
import { ApiEventTenant, ApiEventTimestamp } from './licence-event-bodies';

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

  @ApiEventTimestamp()
  timestamp: string;

  @ApiEventTenant()
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

const DELIVERY_RULES = `
The service POSTs each licence event to the subscription's \`url\`:

- \`Content-Type: application/json\`, \`User-Agent: partner-integration-service/<version>\`, plus the
  subscription's custom header (\`headerName: headerValue\`) when it has one: check it.
- Every delivery is signed (Standard Webhooks v1): \`webhook-id\` (the event's id, the same on every copy and
  resend: your idempotency key), \`webhook-timestamp\` (seconds since the epoch of this attempt) and
  \`webhook-signature\` (\`v1,<base64 HMAC-SHA256 of "<webhook-id>.<webhook-timestamp>.<body>">\` keyed with the
  base64-decoded part of the subscription's \`whsec_\` secret after the prefix, see
  \`GET /webhooks/subscriptions/{id}/secret\`; two space-separated signatures, the new one first, for 24 hours after
  a rotation). Verify the raw body with a Standard Webhooks library, e.g. npm \`standardwebhooks\`:
  \`new Webhook(secret).verify(rawBody, headers)\`, which also refuses timestamps more than 5 minutes off.
- Answer 2xx within 30 seconds: the delivery is SUCCESS. Anything else (non-2xx, a redirect, which is not
  followed, a time-out, a refused connection or TLS failure) is FAILED, recorded in the delivery history
  with \`httpStatusCode\` and \`errorMessage\`, and **never resent**. Answer first, process afterwards.
- Deliveries are asynchronous, unordered and at least once: the same event may arrive twice, always with the
  same \`timestamp\`. Drop duplicates by \`eventType\` + \`timestamp\` + \`licence.code\` and acknowledge them with 2xx.
- Verify the payload structure, check \`tenant\` against the tenants you expect and \`timestamp\` against
  replays (e.g. a 5-minute window). Requests come from the fixed addresses communicated during integration.
`.trim();

/** The callback's body: the payload, with an example of each event type. */
function callbackBody(): RequestBodyObject {
  return {
    required: true,
    description:
      'Exactly eventType, timestamp, tenant, licence and error; the absent one of licence and error is null',
    content: {
      'application/json': {
        schema: { $ref: getSchemaPath(LicenceEventPayloadSchema) },
        examples: {
          success: { summary: 'LICENCE_CREATED_SUCCESS', value: SUCCESS_EVENT_EXAMPLE },
          failed: { summary: 'LICENCE_CREATED_FAILED', value: FAILED_EVENT_EXAMPLE },
        },
      },
    },
  };
}

/** How the receiver's answer decides the delivery's status. */
function callbackResponses(): ResponsesObject {
  return {
    '2XX': { description: 'Received (answered within 30 s): the delivery is SUCCESS' },
    '4XX': {
      description:
        'Refused by the receiver (a bad header value, a payload it does not accept): the delivery is ' +
        'FAILED, with this status code in the history, and is not resent',
    },
    default: {
      description:
        'Anything else, or no answer within 30 s: the delivery is FAILED, with this status code in the ' +
        'history, and is not resent',
    },
  };
}

/** The `licenceEvent` callback: what receivers get and how to answer (spec, Events). */
function licenceEventCallback(version: string): PathItemObject {
  return {
    post: {
      summary: 'Licence event delivered to the subscriber',
      description: DELIVERY_RULES,
      security: [],
      parameters: [
        {
          in: 'header',
          name: 'User-Agent',
          required: true,
          description: 'Identifies the service',
          schema: { type: 'string', example: `partner-integration-service/${version}` },
        },
        {
          in: 'header',
          name: 'webhook-id',
          required: true,
          description:
            "The event's id: the same on every copy and every resend of the event (idempotency key)",
          schema: { type: 'string', example: '1042' },
        },
        {
          in: 'header',
          name: 'webhook-timestamp',
          required: true,
          description:
            'Seconds since the epoch when this attempt was made (signed; refuse it when too far off)',
          schema: { type: 'string', pattern: '^[0-9]+$', example: '1795341600' },
        },
        {
          in: 'header',
          name: 'webhook-signature',
          required: true,
          description:
            'Space-separated `v1,<base64 HMAC-SHA256 of "<webhook-id>.<webhook-timestamp>.<body>">`, keyed with ' +
            "the subscription's secret (the base64 after `whsec_`, decoded); two during a rotation's overlap, " +
            'the new secret first',
          schema: {
            type: 'string',
            pattern: '^v1,[A-Za-z0-9+/]+=*( v1,[A-Za-z0-9+/]+=*)*$',
            example: 'v1,K5oZfzN95Z9UVu1EsfQmfVNQhnkZ2pj9o9NDN/H/pI4=',
          },
        },
      ],
      requestBody: callbackBody(),
      responses: callbackResponses(),
    },
  };
}

/** On the dispatcher's controller: the content of the callback POST /webhooks/subscriptions declares. */
export const ApiLicenceEventCallbackContent = () =>
  ApiCallbackContent(
    { name: LICENCE_EVENT_CALLBACK, pathItem: licenceEventCallback },
    LicenceEventPayloadSchema,
  );
