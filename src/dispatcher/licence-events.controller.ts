import { Body, Controller, HttpCode, Post } from '@nestjs/common';
import { ApiAcceptedResponse, ApiBody, ApiOperation, ApiTags } from '@nestjs/swagger';
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
import { LicenceEventPublisher } from './licence-event.publisher';

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
      'before the 202. The deliveries happen afterwards (see the delivery history).',
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
  @ApiAcceptedResponse({ type: PublishedEventResponse, description: 'Published; deliveries are queued' })
  @ApiErrors(
    [400, 'Invalid event: licence missing on success, error missing on failure, invalid fields'],
    401,
    [403, 'Not an administrator, or the account is disabled'],
    413,
    415,
    429,
  )
  @Post()
  @HttpCode(202)
  async publish(@Body() body: PublishLicenceEventDto): Promise<PublishedEventResponse> {
    const receipt =
      body.eventType === WebhookEvent.LICENCE_CREATED_SUCCESS
        ? await this.publisher.emit(
            WebhookEvent.LICENCE_CREATED_SUCCESS,
            new LicenceCreatedSuccessEvent({ tenant: body.tenant, licence: body.licence! }),
          )
        : await this.publisher.emit(
            WebhookEvent.LICENCE_CREATED_FAILED,
            new LicenceCreatedFailedEvent({ tenant: body.tenant, error: body.error! }),
          );
    return {
      eventId: receipt.eventId,
      eventType: receipt.eventType,
      tenant: receipt.tenant,
      timestamp: receipt.timestamp,
      matchedSubscriptions: receipt.matchedSubscriptions,
    };
  }
}
