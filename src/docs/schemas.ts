import { applyDecorators, Type } from '@nestjs/common';
import {
  ApiExtraModels,
  ApiParam,
  ApiProperty,
  ApiPropertyOptional,
  ApiQuery,
  ApiResponse,
  ApiSchema,
  getSchemaPath,
} from '@nestjs/swagger';
import { STATUS_CODES } from 'node:http';
import { DEFAULT_PAGE_SIZE, MAX_PAGE_SIZE } from '../common/paging/page-query.dto';

/** A UTC timestamp property, YYYY-MM-DDTHH:mm:ss.sssZ (contract section 4). */
export const ApiDateTime = (description: string, example = '2026-11-21T10:00:00.000Z') =>
  ApiProperty({ type: String, format: 'date-time', description, example });

/** OpenAPI schemas of the shared shapes (contract section 4); the TypeScript types live in common/. */
@ApiSchema({ name: 'HalLink', description: 'A HAL link: a path relative to the base address' })
export class HalLinkSchema {
  @ApiProperty({ type: String, description: 'Relative URL', example: '/webhooks/subscriptions/1' })
  href: string;
}

@ApiSchema({ name: 'SelfLinks', description: 'HAL links of a resource' })
export class SelfLinksSchema {
  @ApiProperty({ type: HalLinkSchema, description: 'The resource itself' }) self: HalLinkSchema;
}

@ApiSchema({ name: 'FieldError', description: 'One invalid field of a request' })
export class FieldErrorSchema {
  @ApiProperty({
    type: String,
    description: 'The offending field (dotted path for nested fields, e.g. licence.email)',
    example: 'url',
  })
  field: string;
  @ApiProperty({ type: String, description: 'What is wrong with it', example: 'url must use https' })
  message: string;
}

@ApiSchema({
  name: 'ErrorBody',
  description: 'The one error body of the API (every 4xx and 5xx). Never a stack trace or SQL.',
})
export class ErrorBodySchema {
  @ApiDateTime('When the error happened (UTC, YYYY-MM-DDTHH:mm:ss.sssZ)')
  timestamp: string;
  @ApiProperty({
    type: 'integer',
    minimum: 400,
    maximum: 599,
    description: 'HTTP status code',
    example: 400,
  })
  status: number;
  @ApiProperty({ type: String, description: 'HTTP reason phrase', example: 'Bad Request' }) error: string;
  @ApiProperty({ type: String, description: 'Readable explanation', example: 'Validation failed: url' })
  message: string;
  @ApiProperty({
    type: String,
    description: 'Path of the request, without the query string',
    example: '/webhooks/subscriptions',
  })
  path: string;
  @ApiProperty({
    type: String,
    description: 'Same as the X-Request-Id response header; quote it when reporting a problem',
    example: '3f2b8c1e-6d4a-4f0e-9a57-0c2d9e1b7a44',
  })
  requestId: string;
  @ApiPropertyOptional({
    type: [FieldErrorSchema],
    description: 'Only for validation failures (400): one entry per invalid field',
  })
  errors?: FieldErrorSchema[];
}

@ApiSchema({ name: 'PageLinks', description: 'HAL links of a page; every link keeps the query' })
export class PageLinksSchema {
  @ApiProperty({ type: HalLinkSchema, description: 'This page' }) self: HalLinkSchema;
  @ApiProperty({ type: HalLinkSchema, description: 'The first page' }) first: HalLinkSchema;
  @ApiProperty({ type: HalLinkSchema, description: 'The last page' }) last: HalLinkSchema;
  @ApiPropertyOptional({ type: HalLinkSchema, description: 'The next page, when there is one' })
  next?: HalLinkSchema;
  @ApiPropertyOptional({ type: HalLinkSchema, description: 'The previous page, when there is one' })
  prev?: HalLinkSchema;
}

/** The page envelope (spec, Page envelope) without its content, which ApiPageOf adds. */
@ApiSchema({
  name: 'Page',
  description: 'The page envelope of every list response; `content` holds the items of the page',
})
export class PageSchema {
  @ApiProperty({ type: 'integer', minimum: 0, description: 'Pages available', example: 3 })
  totalPages: number;
  @ApiProperty({ type: 'integer', minimum: 0, description: 'Total elements', example: 45 })
  totalElements: number;
  @ApiProperty({ type: 'integer', minimum: 0, description: 'Elements in this page', example: 20 })
  numberOfElements: number;
  @ApiProperty({
    type: 'integer',
    minimum: 0,
    description:
      'Current page, zero-based: the page asked for, written with its exact digits even past ' +
      '2^53 - 1, where a JavaScript JSON.parse rounds it (the `self` link keeps it as text)',
    example: 0,
  })
  number: number;
  @ApiProperty({
    type: 'integer',
    minimum: 1,
    maximum: MAX_PAGE_SIZE,
    description: `Page size (1..${MAX_PAGE_SIZE}, default ${DEFAULT_PAGE_SIZE})`,
    example: DEFAULT_PAGE_SIZE,
  })
  size: number;
  @ApiProperty({ type: Boolean, description: 'This is the first page', example: true }) first: boolean;
  @ApiProperty({
    type: Boolean,
    description: 'This is the last page (also true past the end)',
    example: false,
  })
  last: boolean;
  @ApiProperty({ type: Boolean, description: 'This page has no elements', example: false })
  empty: boolean;
  @ApiProperty({ type: PageLinksSchema, description: 'HAL links' }) _links: PageLinksSchema;
}

/** 200 with a page envelope whose `content` items are `model`. */
export const ApiPageOf = (model: Type<unknown>, description = 'A page') =>
  applyDecorators(
    ApiExtraModels(PageSchema, model),
    ApiResponse({
      status: 200,
      description,
      schema: {
        allOf: [
          { $ref: getSchemaPath(PageSchema) },
          {
            type: 'object',
            properties: {
              content: {
                type: 'array',
                description: 'The items of this page',
                items: { $ref: getSchemaPath(model) },
              },
            },
            required: ['content'],
          },
        ],
      },
    }),
  );

/** `page` and `size` (contract section 4): documented here, the rules live in PageQueryDto. */
export const ApiPageQuery = () =>
  applyDecorators(
    ApiQuery({
      name: 'page',
      required: false,
      type: 'integer',
      minimum: 0,
      default: 0,
      description:
        'Zero-based page number, any number of digits; a page past the end, however far, is an empty page',
      example: 0,
    }),
    ApiQuery({
      name: 'size',
      required: false,
      type: 'integer',
      minimum: 1,
      maximum: MAX_PAGE_SIZE,
      default: DEFAULT_PAGE_SIZE,
      description: `Page size, 1..${MAX_PAGE_SIZE}`,
      example: DEFAULT_PAGE_SIZE,
    }),
  );

/** The repeatable `sort` query parameter over a whitelist of fields. */
export const ApiSortQuery = (fields: readonly string[], defaultSort: string) =>
  applyDecorators(
    ApiQuery({
      name: 'sort',
      required: false,
      isArray: true,
      type: String,
      description:
        `\`field\` or \`field,asc|desc\` (default direction asc), repeatable: \`sort=name,desc&sort=id\`. ` +
        `Fields: ${fields.join(', ')}. Default: ${defaultSort}. An unknown field or direction is a 400.`,
      example: ['name,asc'],
    }),
  );

const ERROR_MEANINGS: Record<number, string> = {
  400: 'Invalid request: missing or invalid fields (`errors` names them), malformed JSON',
  401: 'Missing, invalid or expired token; at login, invalid credentials',
  403: 'Authenticated but not allowed (role, administrator only, disabled account)',
  404: 'Not found (or belongs to another tenant)',
  409: 'Record already exists',
  413: 'Request body larger than 1 MB',
  415: 'Content-Type is not application/json',
  429: 'Rate limit exceeded; see Retry-After (seconds)',
  500: 'Internal server error',
  503: 'Service unavailable',
};

/** A status code, or a status code with the meaning it has on this operation. */
export type ErrorCode = number | [status: number, description: string];

/** The error responses of an operation, all with the contract's error body. */
export const ApiErrors = (...codes: ErrorCode[]) =>
  applyDecorators(
    ApiExtraModels(ErrorBodySchema),
    ...codes.map((code) => {
      const [status, description] = Array.isArray(code)
        ? code
        : [code, ERROR_MEANINGS[code] ?? STATUS_CODES[code] ?? 'Error'];
      return ApiResponse({
        status,
        description,
        schema: { $ref: getSchemaPath(ErrorBodySchema) },
        ...(status === 429
          ? {
              headers: {
                'Retry-After': {
                  description: 'Seconds to wait before retrying',
                  schema: { type: 'integer', minimum: 1 },
                },
              },
            }
          : {}),
      });
    }),
  );

/**
 * A path id: a positive integer (IdParamPipe: PostgreSQL `integer`, and one past it is the route's
 * 404, as no such row can exist; DeliveryIdPipe: `bigint` up to 2^53 - 1). Anything else is a 400.
 */
export const ApiIdParam = (name: string, description: string, example: number, bigint = false) =>
  ApiParam({
    name,
    required: true,
    description,
    schema: bigint
      ? { type: 'integer', format: 'int64', minimum: 1, maximum: Number.MAX_SAFE_INTEGER, example }
      : { type: 'integer', format: 'int32', minimum: 1, maximum: 2_147_483_647, example },
  });
