import { ApiProperty, ApiPropertyOptional, ApiSchema } from '@nestjs/swagger';
import type { ErrorBody, FieldError } from '../errors/error-body';
import { HalLink } from '../hal/hal';
import type { Page } from '../paging/page';
import { DEFAULT_PAGE_SIZE, MAX_PAGE_SIZE } from '../paging/page-query.dto';

/**
 * OpenAPI schemas of the shared shapes (contract section 4). Each implements the type the code
 * builds the shape with, so the document cannot drift from the wire.
 */

/** A UTC timestamp property, YYYY-MM-DDTHH:mm:ss.sssZ (contract section 4). */
export const ApiDateTime = (description: string, example = '2026-11-21T10:00:00.000Z') =>
  ApiProperty({ type: String, format: 'date-time', description, example });

@ApiSchema({ name: 'FieldError', description: 'One invalid field of a request' })
export class FieldErrorSchema implements FieldError {
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
export class ErrorBodySchema implements ErrorBody {
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
  @ApiProperty({ type: HalLink, description: 'This page' }) self: HalLink;
  @ApiProperty({ type: HalLink, description: 'The first page' }) first: HalLink;
  @ApiProperty({ type: HalLink, description: 'The last page' }) last: HalLink;
  @ApiPropertyOptional({ type: HalLink, description: 'The next page, when there is one' })
  next?: HalLink;
  @ApiPropertyOptional({ type: HalLink, description: 'The previous page, when there is one' })
  prev?: HalLink;
}

/** The page envelope (spec, Page envelope) without its content, which ApiPageOf adds. */
@ApiSchema({
  name: 'Page',
  description: 'The page envelope of every list response; `content` holds the items of the page',
})
export class PageSchema implements Omit<Page<unknown>, 'content' | '_links'> {
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
  number: number | bigint;
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
