import { HttpException, HttpStatus } from '@nestjs/common';

/** A 429 the global filter answers with `Retry-After` (seconds) and the error body. */
export class RetryLaterException extends HttpException {
  constructor(
    message: string,
    readonly retryAfterSeconds: number,
  ) {
    super(message, HttpStatus.TOO_MANY_REQUESTS);
  }
}
