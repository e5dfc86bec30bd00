import { ApiProperty, ApiPropertyOptional, ApiSchema } from '@nestjs/swagger';
import { IsEnum } from 'class-validator';
import { OptionalNotNull } from '../../common/validation/optional-not-null';
import { WebhookEvent } from '../../common/reference/enums';

/** POST /webhooks/subscriptions/{id}/test (contract section 9). */
@ApiSchema({ name: 'TestEventRequest', description: 'The kind of sample event to send' })
export class TestEventDto {
  @ApiPropertyOptional({
    enum: WebhookEvent,
    enumName: 'WebhookEvent',
    default: WebhookEvent.LICENCE_CREATED_SUCCESS,
    description:
      'LICENCE_CREATED_SUCCESS: a sample licence whose `code` starts with `TEST-`; ' +
      'LICENCE_CREATED_FAILED: an error whose `type` is `TestEvent`',
    example: WebhookEvent.LICENCE_CREATED_SUCCESS,
  })
  @OptionalNotNull()
  @IsEnum(WebhookEvent, { message: `eventType must be one of ${Object.values(WebhookEvent).join(', ')}` })
  eventType?: WebhookEvent;
}

@ApiSchema({ name: 'TestEventReceipt', description: 'The test event, committed for delivery' })
export class TestEventReceipt {
  @ApiProperty({
    type: 'integer',
    format: 'int64',
    minimum: 1,
    description: 'Id of the sample event: its `webhook-id`, and the `eventId` of its delivery record',
    example: 1042,
  })
  eventId: number;
}
