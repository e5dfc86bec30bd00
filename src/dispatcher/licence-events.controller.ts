import { Body, Controller, HttpCode, Post, Res } from '@nestjs/common';
import { ApiAcceptedResponse, ApiBody, ApiHeader, ApiOperation, ApiTags } from '@nestjs/swagger';
import type { FastifyReply } from 'fastify';
import { AdminOnly } from '../common/auth/decorators/roles.decorator';
import { WebhookEvent } from '../common/reference/enums';
import { ApiErrors } from '../common/openapi/decorators';
import { PublishedEventResponse, PublishLicenceEventDto } from './dto/publish-licence-event.dto';
import { LicenceCreatedFailedEvent } from '../licence-events/licence-created-failed.event';
import { LicenceCreatedSuccessEvent } from '../licence-events/licence-created-success.event';
import {
  ApiLicenceEventCallbackContent,
  FAILED_EVENT_EXAMPLE,
  SUCCESS_EVENT_EXAMPLE,
} from '../licence-events/licence-event.openapi';
import { IDEMPOTENCY_KEY_HEADER, IdempotencyKeyHeader } from './idempotency-key';
import { LicenceEventPublisher } from './licence-event.publisher';

/** Set on a 202 that answers an earlier publication's receipt again (contract section 11). */
const REPLAYED_HEADER = 'Idempotent-Replayed';

/**
 * POST /admin/licence-events (contract section 6): administrators publish a licence event through
 * the same emitter the internal licence services use. 202 once the event and its deliveries are
 * committed; the deliveries themselves happen afterwards.
 */
@ApiTags('Licence events (administrators)')
@ApiLicenceEventCallbackContent()
@AdminOnly()
@Controller('admin/licence-events')
export class LicenceEventsController {
  constructor(private readonly publisher: LicenceEventPublisher) {}

  @ApiOperation({
    summary: 'Publish a licence event',
    description:
      'Administrators only. Publishes the event through the same emitter the licence services ' +
      'use: one delivery per active subscription of the tenant listing the event, committed ' +
      'before the 202. The deliveries happen afterwards (see the delivery history). With an ' +
      '`Idempotency-Key`, the same event published again within the retention window answers the ' +
      'first receipt (`Idempotent-Replayed: true`) and queues nothing; another event with the key is a 409.',
  })
  @ApiHeader({
    name: IDEMPOTENCY_KEY_HEADER,
    required: false,
    description:
      'Optional, 1 to 255 visible ASCII characters, per tenant: one event per key within the ' +
      'retention window (RETENTION_DAYS), whatever the number of retries or instances',
    schema: { type: 'string', minLength: 1, maxLength: 255, pattern: '^[\\x21-\\x7E]+$' },
  })
  @ApiBody({
    type: PublishLicenceEventDto,
    examples: {
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
    },
  })
  @ApiAcceptedResponse({
    type: PublishedEventResponse,
    description:
      'Published; deliveries are queued. Or, with a key already used for this event, its first receipt',
    headers: {
      [REPLAYED_HEADER]: {
        description: "`true` when this is the key's first receipt answered again: nothing was queued",
        schema: { type: 'string', enum: ['true'] },
      },
    },
  })
  @ApiErrors(
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
  )
  @Post()
  @HttpCode(202)
  async publish(
    @Body() body: PublishLicenceEventDto,
    @IdempotencyKeyHeader() idempotencyKey: string | undefined,
    @Res({ passthrough: true }) reply: FastifyReply,
  ): Promise<PublishedEventResponse> {
    const options = { idempotencyKey };
    const receipt =
      body.eventType === WebhookEvent.LICENCE_CREATED_SUCCESS
        ? await this.publisher.emit(
            WebhookEvent.LICENCE_CREATED_SUCCESS,
            new LicenceCreatedSuccessEvent({ tenant: body.tenant, licence: body.licence! }),
            options,
          )
        : await this.publisher.emit(
            WebhookEvent.LICENCE_CREATED_FAILED,
            new LicenceCreatedFailedEvent({ tenant: body.tenant, error: body.error! }),
            options,
          );
    if (receipt.replayed) void reply.header(REPLAYED_HEADER, 'true');
    return {
      eventId: receipt.eventId,
      eventType: receipt.eventType,
      tenant: receipt.tenant,
      timestamp: receipt.timestamp,
      matchedSubscriptions: receipt.matchedSubscriptions,
    };
  }
}
