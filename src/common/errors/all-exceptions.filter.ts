import { ArgumentsHost, Catch, ExceptionFilter, HttpException, HttpStatus, Logger } from '@nestjs/common';
import { STATUS_CODES } from 'node:http';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { QueryFailedError } from 'typeorm';
import { DATABASE_RETRY_AFTER_SECONDS, isDatabaseUnavailable } from './database-unavailable';
import { errorBody, FieldError } from './error-body';
import { RetryLaterException } from './retry-later.exception';
import { ValidationFailedException } from './validation-failed.exception';

interface Mapped {
  status: number;
  message: string;
  errors?: FieldError[];
  /** Seconds, sent as Retry-After. */
  retryAfter?: number;
}

/** PostgreSQL error codes that are the caller's fault, not ours. */
const PG_CLIENT_ERRORS: Record<string, Mapped> = {
  '23505': { status: 409, message: 'Record already exists' },
  '22P02': { status: 400, message: 'Invalid input value' },
  '22003': { status: 400, message: 'Numeric value out of range' },
  '22001': { status: 400, message: 'Value too long' },
  '22021': { status: 400, message: 'Invalid character in input' },
};

/** Nest's unknown-route message repeats the URL, query string (which may hold secrets) and all. */
const ROUTE_NOT_FOUND = /^Cannot (\S+) ([^?]*)\?.*$/s;

/**
 * Maps anything thrown to the contract's error body (section 4). Fastify's own errors (body too
 * large, malformed JSON, wrong media type) arrive here too, through the Fastify error handler.
 */
export function mapException(exception: unknown): Mapped {
  if (exception instanceof ValidationFailedException) {
    return { status: 400, message: exception.message, errors: exception.fieldErrors };
  }
  if (exception instanceof RetryLaterException) {
    return {
      status: exception.getStatus(),
      message: exception.message,
      retryAfter: exception.retryAfterSeconds,
    };
  }
  if (exception instanceof HttpException) {
    const status = exception.getStatus();
    const response = exception.getResponse();
    let message = exception.message;
    if (typeof response === 'object' && response !== null && 'message' in response) {
      const m = (response as { message: unknown }).message;
      message = Array.isArray(m) ? m.join('; ') : String(m);
    }
    if (status === 404) message = message.replace(ROUTE_NOT_FOUND, 'Cannot $1 $2');
    return { status, message: status >= 500 ? serverMessage(status) : message };
  }
  // Before any other mapping: a lost connection may surface wrapped (QueryFailedError) or raw.
  if (isDatabaseUnavailable(exception)) {
    return { status: 503, message: 'Database unavailable', retryAfter: DATABASE_RETRY_AFTER_SECONDS };
  }
  if (exception instanceof QueryFailedError) {
    const code = (exception.driverError as { code?: string } | undefined)?.code;
    const mapped = code ? PG_CLIENT_ERRORS[code] : undefined;
    return mapped ?? { status: 500, message: 'Internal server error' };
  }
  const fastifyError = exception as { statusCode?: number; code?: string; message?: string };
  if (
    typeof fastifyError?.statusCode === 'number' &&
    fastifyError.statusCode >= 400 &&
    fastifyError.statusCode < 500
  ) {
    return { status: fastifyError.statusCode, message: fastifyMessage(fastifyError) };
  }
  return { status: HttpStatus.INTERNAL_SERVER_ERROR, message: 'Internal server error' };
}

/** 5xx: the reason phrase only (a 503 from the readiness check is not an "internal error"). */
function serverMessage(status: number): string {
  return status === 500 ? 'Internal server error' : (STATUS_CODES[status] ?? 'Server error');
}

function fastifyMessage(error: { code?: string; message?: string; statusCode?: number }): string {
  switch (error.code) {
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return 'Request body is larger than 1 MB';
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      return 'Content-Type must be application/json';
    case 'FST_ERR_CTP_INVALID_CONTENT_LENGTH':
      return 'Content-Length does not match the body';
    case 'FST_ERR_CTP_INVALID_JSON_BODY':
      return 'Malformed JSON in request body';
    case 'FST_ERR_BAD_URL':
      return 'Malformed URL';
    default:
      // Any other client error Fastify raises: its reason phrase, never its own wording.
      return STATUS_CODES[error.statusCode ?? 400] ?? 'Bad request';
  }
}

@Catch()
export class AllExceptionsFilter implements ExceptionFilter {
  private readonly logger = new Logger('Exceptions');

  catch(exception: unknown, host: ArgumentsHost): void {
    const http = host.switchToHttp();
    const request = http.getRequest<FastifyRequest>();
    const reply = http.getResponse<FastifyReply>();
    sendError(reply, request, exception, this.logger);
  }
}

export function sendError(
  reply: FastifyReply,
  request: FastifyRequest,
  exception: unknown,
  logger: { error(message: unknown, ...rest: unknown[]): void },
): void {
  const mapped = mapException(exception);
  if (mapped.retryAfter !== undefined) void reply.header('Retry-After', String(mapped.retryAfter));
  if (mapped.status === 503 && mapped.retryAfter !== undefined) {
    // Expected while the database is away: one line, without the stack of every request.
    logger.error({ requestId: request.id, reason: String((exception as Error)?.message) }, mapped.message);
  } else if (mapped.status >= 500) {
    // The cause goes to the log only; the caller gets the generic body (never a stack or SQL).
    logger.error({ err: exception, requestId: request.id }, 'unhandled error');
  }
  const path = (request.url ?? '').split('?')[0];
  void reply
    .status(mapped.status)
    .header('content-type', 'application/hal+json;charset=UTF-8')
    .send(errorBody(mapped.status, mapped.message, path, String(request.id), mapped.errors));
}
