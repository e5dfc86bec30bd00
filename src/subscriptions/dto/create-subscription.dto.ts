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
import { webhookUrlProblem } from '../webhook-url';

/** RFC 7230 `token` (tchar+). */
const HTTP_TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;

/**
 * Headers the service sets itself (contract section 5, and the Standard Webhooks headers of section
 * 9), plus the other hop-by-hop headers of RFC 7230 section 6.1 and Expect, which would break or
 * change the delivery request itself.
 */
export const RESERVED_HEADER_NAMES: ReadonlySet<string> = new Set([
  'host',
  'content-type',
  'content-length',
  'connection',
  'transfer-encoding',
  'user-agent',
  'webhook-id',
  'webhook-timestamp',
  'webhook-signature',
  'keep-alive',
  'proxy-connection',
  'te',
  'trailer',
  'upgrade',
  'expect',
]);

const EVENTS_MESSAGE = `events must be a non-empty array of ${Object.values(WebhookEvent).join(', ')}`;

const WebhookUrl = () =>
  ValidateBy({
    name: 'webhookUrl',
    validator: {
      validate: (value: unknown) => typeof value !== 'string' || webhookUrlProblem(value) === undefined,
      defaultMessage: (args) => webhookUrlProblem(String(args?.value)) ?? 'url is invalid',
    },
  });

const NotReservedHeader = () =>
  ValidateBy({
    name: 'notReservedHeader',
    validator: {
      validate: (value: unknown) =>
        typeof value !== 'string' || !RESERVED_HEADER_NAMES.has(value.toLowerCase()),
      defaultMessage: () =>
        'headerName must not be a header the service sets itself (e.g. Host, Content-Type, webhook-signature)',
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

/**
 * Body of POST and PUT /webhooks/subscriptions (PUT replaces, with the same rules). Types are
 * strict: the global pipe never converts, so "true" is not a boolean and 5 is not a string.
 */
@ApiSchema({
  name: 'SubscriptionRequest',
  description:
    'Body of POST and PUT /webhooks/subscriptions (PUT replaces: same required fields). ' +
    'Read-only fields of the subscription (id, createdAt, updatedAt, _links, and tenant for ' +
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
      'Name of a custom header sent with every delivery (an HTTP token; not Host, Content-Type, ' +
      'Content-Length, Connection, Transfer-Encoding, User-Agent, webhook-id, webhook-timestamp, ' +
      'webhook-signature or another hop-by-hop header). ' +
      'Left out or null on PUT: the header and its stored value are removed.',
    example: 'X-Webhook-Secret',
  })
  @IsOptional()
  @IsString({ message: 'headerName must be a string' })
  @MaxChars(MAX_STRING_LENGTH)
  @Matches(HTTP_TOKEN, {
    message: "headerName must be an HTTP header name (letters, digits and !#$%&'*+-.^_`|~)",
  })
  @NotReservedHeader()
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
}
