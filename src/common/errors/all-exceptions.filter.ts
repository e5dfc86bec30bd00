import { ArgumentsHost, Catch, ExceptionFilter, HttpException, HttpStatus, Logger } from '@nestjs/common';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { QueryFailedError } from 'typeorm';
import { errorBody, FieldError } from './error-body';
import { ValidationFailedException } from './validation-failed.exception';

interface Mapped {
  status: number;
  message: string;
  errors?: FieldError[];
}

/** PostgreSQL error codes that are the caller's fault, not ours. */
const PG_CLIENT_ERRORS: Record<string, Mapped> = {
  '23505': { status: 409, message: 'Record already exists' },
  '22P02': { status: 400, message: 'Invalid input value' },
  '22003': { status: 400, message: 'Numeric value out of range' },
  '22001': { status: 400, message: 'Value too long' },
  '22021': { status: 400, message: 'Invalid character in input' },
};

/**
 * Maps anything thrown to the contract's error body (section 4). Fastify's own errors (body too
 * large, malformed JSON, wrong media type) arrive here too, through the Fastify error handler.
 */
export function mapException(exception: unknown): Mapped {
  if (exception instanceof ValidationFailedException) {
    return { status: 400, message: exception.message, errors: exception.fieldErrors };
  }
  if (exception instanceof HttpException) {
    const status = exception.getStatus();
    const response = exception.getResponse();
    let message = exception.message;
    if (typeof response === 'object' && response !== null && 'message' in response) {
      const m = (response as { message: unknown }).message;
      message = Array.isArray(m) ? m.join('; ') : String(m);
    }
    return { status, message: status >= 500 ? 'Internal server error' : message };
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

function fastifyMessage(error: { code?: string; message?: string; statusCode?: number }): string {
  switch (error.code) {
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return 'Request body is larger than 1 MB';
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      return 'Content-Type must be application/json';
    case 'FST_ERR_CTP_EMPTY_JSON_BODY':
      return 'Request body is empty';
    case 'FST_ERR_CTP_INVALID_CONTENT_LENGTH':
      return 'Content-Length does not match the body';
    default:
      if (error.statusCode === 400 && error instanceof SyntaxError) return 'Malformed JSON in request body';
      if (error.statusCode === 400) return 'Malformed JSON in request body';
      return error.message ?? 'Bad request';
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
  if (mapped.status >= 500) {
    // The cause goes to the log only; the caller gets the generic body (never a stack or SQL).
    logger.error({ err: exception, requestId: request.id }, 'unhandled error');
  }
  const path = (request.url ?? '').split('?')[0];
  void reply
    .status(mapped.status)
    .header('content-type', 'application/hal+json;charset=UTF-8')
    .send(errorBody(mapped.status, mapped.message, path, String(request.id), mapped.errors));
}
