import { Body, Controller, HttpCode, Post, Res } from '@nestjs/common';
import { ApiTags } from '@nestjs/swagger';
import type { FastifyReply } from 'fastify';
import { AdminOnly } from '../common/auth/decorators/roles.decorator';
import { WebhookEvent } from '../common/reference/enums';
import { PublishedEventResponse, PublishLicenceEventDto } from './dto/publish-licence-event.dto';
import { LicenceCreatedFailedEvent } from '../licence-events/licence-created-failed.event';
import { LicenceCreatedSuccessEvent } from '../licence-events/licence-created-success.event';
import { ApiLicenceEventCallbackContent } from '../licence-events/licence-event.openapi';
import { validatedPart } from '../licence-events/licence-event-body';
import { IdempotencyKeyHeader } from './idempotency-key';
import { LicenceEventPublisher } from './licence-event.publisher';
import { ApiPublishLicenceEvent, REPLAYED_HEADER } from './licence-events.openapi';

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

  @ApiPublishLicenceEvent()
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
            new LicenceCreatedSuccessEvent({ tenant: body.tenant, licence: validatedPart(body.licence!) }),
            options,
          )
        : await this.publisher.emit(
            WebhookEvent.LICENCE_CREATED_FAILED,
            new LicenceCreatedFailedEvent({ tenant: body.tenant, error: validatedPart(body.error!) }),
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
