import { ApiProperty } from '@nestjs/swagger';
import { ApiClosedSchema } from '../common/openapi/closed-schemas';
import { IsEmail, IsEnum, IsInt, IsNumber, IsString, Matches, Max, Min } from 'class-validator';
import { Chars, MaxChars } from '../common/validation/text-rules';
import { PHONE_NUMBER, SCHEMA_EMAIL } from '../common/reference/formats';
import { LicenceStatus, MAX_STRING_LENGTH } from '../common/reference/enums';
import { IsPhoneNumber } from '../common/reference/validators';
import type { LicenceErrorPayload, LicencePayload } from './licence-payloads';

const POSITIVE_INT = 'must be a positive integer';
const MAX_INT = Number.MAX_SAFE_INTEGER;

/** The licence object of a published event (contract section 7), for the API and in-process events. */
@ApiClosedSchema({
  name: 'Licence',
  description: 'The licence record of a LICENCE_CREATED_SUCCESS event (spec, licence object)',
})
export class LicenceDto implements LicencePayload {
  @ApiProperty({
    type: String,
    minLength: 1,
    maxLength: MAX_STRING_LENGTH,
    description: 'Licence code (with eventType and timestamp, the duplicate key of success events)',
    example: 'LIC-2026-000123',
  })
  @IsString()
  @Chars(1, MAX_STRING_LENGTH)
  code: string;

  @ApiProperty({ type: 'integer', minimum: 1, maximum: MAX_INT, description: 'Client id', example: 7 })
  @IsInt({ message: `clientId ${POSITIVE_INT}` })
  @Min(1, { message: `clientId ${POSITIVE_INT}` })
  @Max(MAX_INT)
  clientId: number;

  @ApiProperty({ type: 'integer', minimum: 1, maximum: MAX_INT, description: 'Plan id', example: 3 })
  @IsInt({ message: `planId ${POSITIVE_INT}` })
  @Min(1, { message: `planId ${POSITIVE_INT}` })
  @Max(MAX_INT)
  planId: number;

  @ApiProperty({
    type: String,
    minLength: 1,
    maxLength: MAX_STRING_LENGTH,
    description: 'Holder name',
    example: 'Maria Silva',
  })
  @IsString()
  @Chars(1, MAX_STRING_LENGTH)
  name: string;

  @ApiProperty({
    type: String,
    format: 'email',
    maxLength: MAX_STRING_LENGTH,
    description: 'Holder e-mail',
    example: 'maria@example.com',
  })
  @IsEmail({}, { message: 'email must be an e-mail address' })
  @Matches(SCHEMA_EMAIL, { message: 'email must be an ASCII e-mail address (JSON Schema format email)' })
  @MaxChars(MAX_STRING_LENGTH)
  email: string;

  @ApiProperty({
    type: String,
    pattern: PHONE_NUMBER.source,
    description: 'Area code plus number, digits only, no formatting',
    example: '11987654321',
  })
  @IsString()
  @IsPhoneNumber()
  phoneNumber: string;

  @ApiProperty({
    enum: LicenceStatus,
    enumName: 'LicenceStatus',
    description:
      'CREATED (awaiting activation by the user), ACTIVATED (in use), SUSPENDED (temporarily), DEACTIVATED',
    example: LicenceStatus.CREATED,
  })
  @IsEnum(LicenceStatus, { message: `status must be one of ${Object.values(LicenceStatus).join(', ')}` })
  status: LicenceStatus;

  @ApiProperty({
    type: 'integer',
    minimum: 1,
    maximum: MAX_INT,
    description: 'Maximum redemptions',
    example: 5,
  })
  @IsInt({ message: `maxRedemptions ${POSITIVE_INT}` })
  @Min(1, { message: `maxRedemptions ${POSITIVE_INT}` })
  @Max(MAX_INT)
  maxRedemptions: number;

  @ApiProperty({ type: Number, minimum: 0, description: 'Decimal price', example: 19.9 })
  @IsNumber({ allowNaN: false, allowInfinity: false }, { message: 'pricing must be a number ≥ 0' })
  @Min(0, { message: 'pricing must be a number ≥ 0' })
  pricing: number;
}

/** The error object of a failure event: message and type (an exception kind name). */
@ApiClosedSchema({
  name: 'LicenceError',
  description: 'Why the creation of a licence failed (LICENCE_CREATED_FAILED events)',
})
export class LicenceErrorDto implements LicenceErrorPayload {
  @ApiProperty({
    type: String,
    minLength: 1,
    maxLength: MAX_STRING_LENGTH,
    description: 'Readable explanation',
    example: 'Plan 3 is not available for client 7',
  })
  @IsString()
  @Chars(1, MAX_STRING_LENGTH)
  message: string;

  @ApiProperty({
    type: String,
    minLength: 1,
    maxLength: MAX_STRING_LENGTH,
    description: 'An exception kind name',
    example: 'PlanNotAvailableException',
  })
  @IsString()
  @Chars(1, MAX_STRING_LENGTH)
  type: string;
}
