import { ApiProperty, ApiPropertyOptional, ApiSchema } from '@nestjs/swagger';
import { IsString, ValidateBy } from 'class-validator';
import { OptionalNotNull } from '../../common/validation/optional-not-null';
import {
  MAX_KEY_BYTES,
  MIN_KEY_BYTES,
  SIGNING_SECRET_PATTERN,
  SIGNING_SECRET_PREFIX,
  signingSecretProblem,
} from '../signing-secret';

export const SIGNING_SECRET_EXAMPLE = 'whsec_SP4ZLjulpiOAj70TPk7S4s0m/MR4YPvN';

/** The length of `whsec_` + base64 of MIN_KEY_BYTES..MAX_KEY_BYTES bytes. */
const keyLength = (bytes: number) => SIGNING_SECRET_PREFIX.length + 4 * Math.ceil(bytes / 3);

const keyProperty = {
  type: String,
  pattern: SIGNING_SECRET_PATTERN,
  minLength: keyLength(MIN_KEY_BYTES),
  maxLength: keyLength(MAX_KEY_BYTES),
  example: SIGNING_SECRET_EXAMPLE,
};

const SigningSecret = () =>
  ValidateBy({
    name: 'signingSecret',
    validator: {
      validate: (value: unknown) => typeof value !== 'string' || signingSecretProblem(value) === undefined,
      defaultMessage: (args) => signingSecretProblem(String(args?.value)) ?? 'key is invalid',
    },
  });

/** Body of POST /webhooks/subscriptions/{id}/secret/rotate: optional, and so is `key`. */
@ApiSchema({
  name: 'SigningSecretRotation',
  description: 'Optional body of a rotation: the new secret to use; left out, one is generated.',
})
export class RotateSigningSecretDto {
  @ApiPropertyOptional({
    ...keyProperty,
    description:
      `The new secret: ${SIGNING_SECRET_PREFIX} followed by the base64 (standard alphabet, with ` +
      `padding) of ${MIN_KEY_BYTES} to ${MAX_KEY_BYTES} bytes. Left out: a new one is generated.`,
  })
  @OptionalNotNull()
  @IsString({ message: 'key must be a string' })
  @SigningSecret()
  key?: string;
}

/** GET …/secret and POST …/secret/rotate. */
@ApiSchema({
  name: 'SigningSecret',
  description:
    "The subscription's Standard Webhooks signing secret: receivers verify `webhook-signature` with it.",
})
export class SigningSecretResponse {
  @ApiProperty({
    ...keyProperty,
    description: `${SIGNING_SECRET_PREFIX} followed by the base64 of the HMAC-SHA256 key`,
  })
  key: string;
}

/** POST …/secret/rotate: the new secret, and the end of the overlap (the portal shows it). */
@ApiSchema({
  name: 'RotatedSigningSecret',
  description: 'The new signing secret, and until when the one it replaced keeps signing alongside it.',
})
export class RotatedSigningSecretResponse extends SigningSecretResponse {
  @ApiProperty({
    type: String,
    format: 'date-time',
    nullable: true,
    example: '2026-11-22T10:00:00.000Z',
    description:
      'When the previous secret stops signing: now + WEBHOOK_SECRET_OVERLAP_MS (UTC). Null when there was no previous secret.',
  })
  previousKeyExpiresAt: string | null;
}
