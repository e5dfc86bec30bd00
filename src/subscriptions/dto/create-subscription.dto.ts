import { ApiProperty, ApiPropertyOptional, ApiSchema } from '@nestjs/swagger';
import {
  Allow,
  ArrayNotEmpty,
  IsArray,
  IsBoolean,
  IsEnum,
  IsNotEmpty,
  IsOptional,
  IsString,
  Matches,
  ValidateBy,
  ValidateIf,
} from 'class-validator';
import { MAX_OBSERVATIONS_LENGTH, MAX_STRING_LENGTH, WebhookEvent } from '../../common/reference/enums';
import { ReadOnlyResourceFields } from '../../common/validation/read-only-fields';
import { MaxChars, NoControlCharacters, NotBlank } from '../../common/validation/text-rules';
import { customHeaderNameProblem, HTTP_TOKEN } from '../custom-header-name';
import { webhookUrlProblem } from '../webhook-url';

const EVENTS_MESSAGE = `events must be a non-empty array of ${Object.values(WebhookEvent).join(', ')}`;

const WebhookUrl = () =>
  ValidateBy({
    name: 'webhookUrl',
    validator: {
      validate: (value: unknown) => typeof value !== 'string' || webhookUrlProblem(value) === undefined,
      defaultMessage: (args) => webhookUrlProblem(String(args?.value)) ?? 'url is invalid',
    },
  });

/** Contract section 8, Custom header names: the one rule (customHeaderNameProblem). */
const CustomHeaderName = () =>
  ValidateBy({
    name: 'customHeaderName',
    validator: {
      validate: (value: unknown) => typeof value !== 'string' || customHeaderNameProblem(value) === undefined,
      defaultMessage: (args) => customHeaderNameProblem(String(args?.value)) ?? 'headerName is invalid',
    },
  });

const NeedsHeaderName = () =>
  ValidateBy({
    name: 'needsHeaderName',
    validator: {
      validate: (value: unknown, args) =>
        value === null ||
        value === undefined ||
        typeof (args?.object as { headerName?: unknown }).headerName === 'string',
      defaultMessage: () => 'headerValue needs a headerName',
    },
  });

/** Contract section 11, Delivery rate per subscription. */
export const MAX_DELIVERIES_PER_SECOND = 1000;
const RATE_MESSAGE = `maxDeliveriesPerSecond must be an integer from 1 to ${MAX_DELIVERIES_PER_SECOND}, or null`;

/** An integer in range, as JSON gave it: the global pipe never converts, so "5" is refused. */
const DeliveryRate = () =>
  ValidateBy({
    name: 'deliveryRate',
    validator: {
      validate: (value: unknown) =>
        Number.isInteger(value) && (value as number) >= 1 && (value as number) <= MAX_DELIVERIES_PER_SECOND,
      defaultMessage: () => RATE_MESSAGE,
    },
  });

/**
 * Body of POST and PUT /webhooks/subscriptions (PUT replaces, with the same rules). Types are
 * strict: the global pipe never converts, so "true" is not a boolean and 5 is not a string.
 */
@ApiSchema({
  name: 'SubscriptionRequest',
  description:
    'Body of POST and PUT /webhooks/subscriptions (PUT replaces: same required fields). ' +
    'Read-only fields of the subscription (id, createdAt, updatedAt, _links, health, and tenant for ' +
    'non-administrators) are accepted and ignored, so a subscription can be read, changed and put ' +
    'back; any other unknown field is a 400.',
})
export class CreateSubscriptionDto extends ReadOnlyResourceFields {
  // Read-only for non-administrators (contract section 4): the service reads it for administrators.
  @ApiPropertyOptional({
    type: String,
    maxLength: MAX_STRING_LENGTH,
    description:
      'Administrators only: the tenant to set the subscription up for (on create). ' +
      "Ignored for anyone else: the user's own tenant is used.",
    example: 'acme',
  })
  @Allow()
  tenant?: unknown;

  /** Read-only (kept by the recorded attempts): accepted and ignored, so a GET can be put back. */
  @Allow()
  health?: unknown;

  /** Omitted: true on create, unchanged on PUT. */
  @ApiPropertyOptional({
    type: Boolean,
    description: 'Deliveries go to active subscriptions only. Omitted: true on create, unchanged on PUT.',
    example: true,
  })
  @ValidateIf((o: CreateSubscriptionDto) => o.active !== undefined)
  @IsBoolean({ message: 'active must be true or false' })
  active?: boolean;

  @ApiProperty({
    type: String,
    minLength: 1,
    maxLength: MAX_STRING_LENGTH,
    description: 'Identifying name (not blank, no control characters)',
    example: 'Licence events to ERP',
  })
  @IsString({ message: 'name must be a string' })
  @NotBlank()
  @MaxChars(MAX_STRING_LENGTH)
  @NoControlCharacters()
  name: string;

  @ApiProperty({
    type: String,
    format: 'uri',
    pattern: '^https://',
    maxLength: MAX_STRING_LENGTH,
    description:
      'Receiver URL: absolute https:// URL without user-info. A literal private, loopback or ' +
      'link-local address is refused; so is, at delivery time, a host resolving to one.',
    example: 'https://erp.acme.com/webhooks/licences',
  })
  @IsString({ message: 'url must be a string' })
  @MaxChars(MAX_STRING_LENGTH)
  @WebhookUrl()
  url: string;

  @ApiPropertyOptional({
    type: String,
    nullable: true,
    maxLength: MAX_OBSERVATIONS_LENGTH,
    description: 'Optional text (line breaks allowed)',
    example: 'Activates licences in our ERP',
  })
  @IsOptional()
  @IsString({ message: 'description must be a string' })
  @MaxChars(MAX_OBSERVATIONS_LENGTH)
  @NoControlCharacters(true)
  description?: string | null;

  @ApiProperty({
    enum: WebhookEvent,
    enumName: 'WebhookEvent',
    isArray: true,
    minItems: 1,
    description: 'Events to deliver (non-empty; duplicates are collapsed)',
    example: [WebhookEvent.LICENCE_CREATED_SUCCESS, WebhookEvent.LICENCE_CREATED_FAILED],
  })
  @IsArray({ message: EVENTS_MESSAGE })
  @ArrayNotEmpty({ message: EVENTS_MESSAGE })
  @IsEnum(WebhookEvent, { each: true, message: EVENTS_MESSAGE })
  events: WebhookEvent[];

  @ApiPropertyOptional({
    type: String,
    nullable: true,
    maxLength: MAX_STRING_LENGTH,
    pattern: HTTP_TOKEN.source,
    description:
      'Name of a custom header sent with every delivery, exactly as given: an HTTP token, ' +
      'case-insensitively not a hop-by-hop header (Connection, Keep-Alive, Proxy-Authenticate, ' +
      'Proxy-Authorization, Proxy-Connection, TE, Trailer, Transfer-Encoding, Upgrade), Host, ' +
      'Content-*, Accept-Encoding, User-Agent, webhook-*, traceparent, tracestate, Expect, ' +
      '__proto__, constructor or prototype. ' +
      'Left out or null on PUT: the header and its stored value are removed.',
    example: 'X-Webhook-Secret',
  })
  @IsOptional()
  @IsString({ message: 'headerName must be a string' })
  @MaxChars(MAX_STRING_LENGTH)
  @CustomHeaderName()
  headerName?: string | null;

  /** Write-only: stored encrypted, never returned. */
  @ApiPropertyOptional({
    type: String,
    nullable: true,
    writeOnly: true,
    minLength: 1,
    maxLength: MAX_STRING_LENGTH,
    pattern: '^[\\x20-\\x7e]*$',
    description:
      'Value of the custom header (printable ASCII); needs headerName. Write-only: stored ' +
      'encrypted, never returned. Left out on PUT with the same headerName: the stored value is ' +
      'kept; null: cleared.',
    example: 's3cret-shared-value',
  })
  @IsOptional()
  @IsString({ message: 'headerValue must be a string' })
  @IsNotEmpty({ message: 'headerValue must not be empty' })
  @MaxChars(MAX_STRING_LENGTH)
  @Matches(/^[\x20-\x7e]*$/, {
    message: 'headerValue must be printable ASCII, without CR, LF or other control characters',
  })
  @NeedsHeaderName()
  headerValue?: string | null;

  @ApiPropertyOptional({
    type: 'integer',
    nullable: true,
    minimum: 1,
    maximum: MAX_DELIVERIES_PER_SECOND,
    description:
      'At most this many deliveries to this subscription start in any one-second window, across ' +
      'all instances together; what waits stays queued, never FAILED for waiting. null: no limit ' +
      '(the default on create). Left out on PUT: unchanged.',
    example: 20,
  })
  @IsOptional()
  @DeliveryRate()
  maxDeliveriesPerSecond?: number | null;
}
