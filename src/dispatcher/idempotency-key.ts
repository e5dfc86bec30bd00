import {
  ConflictException,
  createParamDecorator,
  ExecutionContext,
  Injectable,
  PipeTransform,
} from '@nestjs/common';
import type { FastifyRequest } from 'fastify';
import { ValidationFailedException } from '../common/errors/validation-failed.exception';

/** Contract section 11: 1 to 255 visible ASCII characters (RFC 5234 VCHAR). */
const IDEMPOTENCY_KEY = /^[\x21-\x7e]{1,255}$/;

/** The key when it is one, else a 400 naming `field` (the header, or the in-process option). */
export function checkedIdempotencyKey(value: unknown, field: string): string {
  if (typeof value === 'string' && IDEMPOTENCY_KEY.test(value)) return value;
  throw new ValidationFailedException([
    { field, message: `${field} must be 1 to 255 visible ASCII characters` },
  ]);
}

/** The key was already used, within retention, for another event of the tenant: 409. */
export class IdempotencyKeyReusedException extends ConflictException {
  constructor(key: string) {
    super(`Idempotency-Key "${key}" was already used for a different event of this tenant`);
  }
}

export const IDEMPOTENCY_KEY_HEADER = 'Idempotency-Key';

/** The optional `Idempotency-Key` header: absent is undefined, anything but a key is a 400 naming it. */
@Injectable()
export class IdempotencyKeyPipe implements PipeTransform<string | undefined, string | undefined> {
  transform(value: string | undefined): string | undefined {
    return value === undefined ? undefined : checkedIdempotencyKey(value, IDEMPOTENCY_KEY_HEADER);
  }
}

const requestHeader = createParamDecorator(
  (name: string, context: ExecutionContext) =>
    context.switchToHttp().getRequest<FastifyRequest>().headers[name],
);

/** The request's `Idempotency-Key`, checked by IdempotencyKeyPipe (`@Headers()` takes no pipe). */
export const IdempotencyKeyHeader = () =>
  requestHeader(IDEMPOTENCY_KEY_HEADER.toLowerCase(), IdempotencyKeyPipe);
