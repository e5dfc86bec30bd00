import { applyDecorators } from '@nestjs/common';
import { ApiAcceptedResponse, ApiBody, ApiHeader, ApiOperation } from '@nestjs/swagger';
import { ApiErrors } from '../common/openapi/decorators';
import { FAILED_EVENT_EXAMPLE, SUCCESS_EVENT_EXAMPLE } from '../licence-events/licence-event.openapi';
import { PublishedEventResponse, PublishLicenceEventDto } from './dto/publish-licence-event.dto';
import { IDEMPOTENCY_KEY_HEADER } from './idempotency-key';

/** Set on a 202 that answers an earlier publication's receipt again (contract section 11). */
export const REPLAYED_HEADER = 'Idempotent-Replayed';

/** One request body of each event type, for Swagger UI's "Try it out". */
const PUBLISH_EXAMPLES = {
  success: {
    summary: 'LICENCE_CREATED_SUCCESS',
    value: {
      eventType: SUCCESS_EVENT_EXAMPLE.eventType,
      tenant: 'acme',
      licence: SUCCESS_EVENT_EXAMPLE.licence,
    },
  },
  failed: {
    summary: 'LICENCE_CREATED_FAILED',
    value: {
      eventType: FAILED_EVENT_EXAMPLE.eventType,
      tenant: 'acme',
      error: FAILED_EVENT_EXAMPLE.error,
    },
  },
};

/** POST /admin/licence-events as the OpenAPI document shows it: the examples, the key, the answers. */
export const ApiPublishLicenceEvent = () =>
  applyDecorators(
    ApiOperation({
      summary: 'Publish a licence event',
      description:
        'Administrators only. Publishes the event through the same emitter the licence services ' +
        'use: one delivery per active subscription of the tenant listing the event, committed ' +
        'before the 202. The deliveries happen afterwards (see the delivery history). With an ' +
        '`Idempotency-Key`, the same event published again within the retention window answers the ' +
        'first receipt (`Idempotent-Replayed: true`) and queues nothing; another event with the key is a 409.',
    }),
    ApiHeader({
      name: IDEMPOTENCY_KEY_HEADER,
      required: false,
      description:
        'Optional, 1 to 255 visible ASCII characters, per tenant: one event per key within the ' +
        'retention window (RETENTION_DAYS), whatever the number of retries or instances',
      schema: { type: 'string', minLength: 1, maxLength: 255, pattern: '^[\\x21-\\x7E]+$' },
    }),
    ApiBody({
      type: PublishLicenceEventDto,
      examples: PUBLISH_EXAMPLES,
    }),
    ApiAcceptedResponse({
      type: PublishedEventResponse,
      description:
        'Published; deliveries are queued. Or, with a key already used for this event, its first receipt',
      headers: {
        [REPLAYED_HEADER]: {
          description: "`true` when this is the key's first receipt answered again: nothing was queued",
          schema: { type: 'string', enum: ['true'] },
        },
      },
    }),
    ApiErrors(
      [
        400,
        'Invalid event: licence missing on success, error missing on failure, invalid fields; an invalid Idempotency-Key',
      ],
      401,
      [403, 'Not an administrator, or the account is disabled'],
      [409, 'The Idempotency-Key was already used for a different event of the tenant'],
      413,
      415,
      429,
    ),
  );
