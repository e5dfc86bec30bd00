import { ApiPropertyOptional } from '@nestjs/swagger';
import { IsEnum, IsOptional } from 'class-validator';
import { SortedPageQueryDto } from '../../common/paging/page-query.dto';
import { DeliveryStatus, DeliveryTrigger, WebhookEvent } from '../../common/reference/enums';
import { EXAMPLE_END, InstantField } from '../../common/validation/instant';

/**
 * API sort fields → columns; the only text that reaches ORDER BY (contract section 4): the fields
 * of the spec's delivery record that order one subscription's history. subscriptionId and
 * subscriptionName are the same on every record of it, and errorMessage is free text.
 */
export const DELIVERY_SORT_FIELDS = {
  id: 'id',
  sentAt: 'sent_at',
  createdAt: 'created_at',
  status: 'status',
  httpStatusCode: 'http_status_code',
  eventType: 'event_type',
  trigger: 'trigger',
  durationMs: 'duration_ms',
} as const;

const oneOf = (field: string, values: object) =>
  `${field} must be one of ${Object.values(values).join(', ')}`;

/**
 * GET /webhooks/subscriptions/{id}/deliveries?page&size&sort (spec, Limits: sort on all lists) and
 * the filters of contract section 9; each given once (a repeated one is a 400 naming it).
 */
export class ListDeliveriesQueryDto extends SortedPageQueryDto {
  @ApiPropertyOptional({
    enum: DeliveryStatus,
    enumName: 'DeliveryStatus',
    description: 'Only records of this outcome',
    example: DeliveryStatus.FAILED,
  })
  @IsOptional()
  @IsEnum(DeliveryStatus, { message: oneOf('status', DeliveryStatus) })
  status?: DeliveryStatus;

  @ApiPropertyOptional({
    enum: WebhookEvent,
    enumName: 'WebhookEvent',
    description: 'Only records of this event kind',
    example: WebhookEvent.LICENCE_CREATED_SUCCESS,
  })
  @IsOptional()
  @IsEnum(WebhookEvent, { message: oneOf('eventType', WebhookEvent) })
  eventType?: WebhookEvent;

  @ApiPropertyOptional({
    enum: DeliveryTrigger,
    enumName: 'DeliveryTrigger',
    description: 'Only attempts made by this trigger',
    example: DeliveryTrigger.RESEND,
  })
  @IsOptional()
  @IsEnum(DeliveryTrigger, { message: oneOf('trigger', DeliveryTrigger) })
  trigger?: DeliveryTrigger;

  @IsOptional()
  @InstantField('Only records sent at or after this time (inclusive)')
  since?: string;

  @IsOptional()
  @InstantField('Only records sent before this time (exclusive)', false, EXAMPLE_END)
  until?: string;
}
