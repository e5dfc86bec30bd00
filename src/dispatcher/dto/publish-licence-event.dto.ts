import { ApiProperty, ApiPropertyOptional, ApiSchema } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import {
  IsEnum,
  IsObject,
  IsString,
  ValidateBy,
  ValidateIf,
  ValidateNested,
  ValidationArguments,
} from 'class-validator';
import { Chars } from '../../common/validation/text-rules';
import { MAX_STRING_LENGTH, WebhookEvent } from '../../common/reference/enums';
import { LicenceDto, LicenceErrorDto } from '../../licence-events/licence.dto';

const { LICENCE_CREATED_SUCCESS: SUCCESS, LICENCE_CREATED_FAILED: FAILED } = WebhookEvent;

/** Fails when the property holds a value although the event type says it must be null or absent. */
const NullFor = (eventType: WebhookEvent) =>
  ValidateBy({
    name: 'nullForEventType',
    validator: {
      validate: (value: unknown, args?: ValidationArguments) =>
        (args?.object as { eventType?: unknown }).eventType !== eventType ||
        value === null ||
        value === undefined,
      defaultMessage: (args?: ValidationArguments) =>
        `${args?.property} must be null or absent when eventType is ${eventType}`,
    },
  });

/**
 * Runs the property's rules when it has a value, or when the event type needs it (then a missing
 * value fails `IsObject`, reported as "required"). Null or absent otherwise is simply absent.
 */
const checkedWhen = (property: 'licence' | 'error', eventType: WebhookEvent) =>
  ValidateIf((o: Record<string, unknown>) => o[property] != null || o.eventType === eventType);

/** POST /admin/licence-events (contract sections 6 and 7). */
@ApiSchema({
  name: 'PublishLicenceEventRequest',
  description: `A licence event to publish: \`licence\` on ${SUCCESS}, \`error\` on ${FAILED}`,
})
export class PublishLicenceEventDto {
  @ApiProperty({
    enum: WebhookEvent,
    enumName: 'WebhookEvent',
    description: 'The event kind',
    example: SUCCESS,
  })
  @IsEnum(WebhookEvent, { message: `eventType must be one of ${Object.values(WebhookEvent).join(', ')}` })
  eventType: WebhookEvent;

  @ApiProperty({
    type: String,
    minLength: 1,
    maxLength: MAX_STRING_LENGTH,
    description: 'Tenant the event belongs to: its active subscriptions listing the event get it',
    example: 'acme',
  })
  @IsString()
  @Chars(1, MAX_STRING_LENGTH)
  tenant: string;

  /** Required on LICENCE_CREATED_SUCCESS; null or absent on LICENCE_CREATED_FAILED. */
  @ApiPropertyOptional({
    type: LicenceDto,
    nullable: true,
    description: `Required when eventType is ${SUCCESS}; null or absent when it is ${FAILED}`,
  })
  @checkedWhen('licence', SUCCESS)
  @NullFor(FAILED)
  @IsObject({ message: `licence must be an object (required when eventType is ${SUCCESS})` })
  @ValidateNested()
  @Type(() => LicenceDto)
  licence?: LicenceDto | null;

  /** Required on LICENCE_CREATED_FAILED; null or absent on LICENCE_CREATED_SUCCESS. */
  @ApiPropertyOptional({
    type: LicenceErrorDto,
    nullable: true,
    description: `Required when eventType is ${FAILED}; null or absent when it is ${SUCCESS}`,
  })
  @checkedWhen('error', FAILED)
  @NullFor(SUCCESS)
  @IsObject({
    message: `error must be an object with message and type (required when eventType is ${FAILED})`,
  })
  @ValidateNested()
  @Type(() => LicenceErrorDto)
  error?: LicenceErrorDto | null;
}

/** 202 body of POST /admin/licence-events. */
@ApiSchema({
  name: 'PublishedEvent',
  description: 'The event and one delivery job per matching subscription are committed',
})
export class PublishedEventResponse {
  @ApiProperty({ type: 'integer', minimum: 1, description: 'Id of the stored event', example: 1 })
  eventId: number;
  @ApiProperty({
    enum: WebhookEvent,
    enumName: 'WebhookEvent',
    description: 'The event kind',
    example: SUCCESS,
  })
  eventType: WebhookEvent;
  @ApiProperty({ type: String, description: 'Tenant of the event', example: 'acme' })
  tenant: string;
  @ApiProperty({
    type: String,
    format: 'date-time',
    description: "The event's timestamp: the `timestamp` of every delivered copy (UTC)",
    example: '2026-11-21T10:00:00.000Z',
  })
  timestamp: string;
  @ApiProperty({
    type: 'integer',
    minimum: 0,
    description: 'Active subscriptions of the tenant listing the event: one delivery each',
    example: 1,
  })
  matchedSubscriptions: number;
}
