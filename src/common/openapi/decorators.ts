import { applyDecorators, Type } from '@nestjs/common';
import { ApiExtraModels, ApiParam, ApiQuery, ApiResponse, getSchemaPath } from '@nestjs/swagger';
import { STATUS_CODES } from 'node:http';
import { DEFAULT_PAGE_SIZE, MAX_PAGE_SIZE } from '../paging/page-query.dto';
import { MAX_ID } from '../validation/id-param.pipe';
import { ErrorBodySchema, PageSchema } from './schemas';

/** The name of the document's bearer security scheme (JWT, or METRICS_TOKEN on /metrics). */
export const BEARER_SCHEME = 'bearer';

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
        `\`field\` or \`field,asc|desc\` (default direction asc), repeatable: \`sort=${fields[0]},desc&sort=${fields.at(-1)}\`. ` +
        `Fields: ${fields.join(', ')}. Default: ${defaultSort}. An unknown field or direction is a 400.`,
      // A value the route accepts: its first field (a field it lacks would be the 400 above).
      example: [`${fields[0]},desc`],
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
      : { type: 'integer', format: 'int32', minimum: 1, maximum: MAX_ID, example },
  });
