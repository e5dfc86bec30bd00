import { BadRequestException, createParamDecorator, ExecutionContext } from '@nestjs/common';
import type { FastifyRequest } from 'fastify';
import { ValidationFailedException } from '../errors/validation-failed.exception';
import { isPlainJsonObject, NOT_AN_OBJECT } from './validation.pipe';

/**
 * The body of a route that takes none: nothing, or an empty JSON object. Any field of one is unknown,
 * so a 400 naming it (contract section 4), and anything but an object is a 400 as on every route.
 * The parameter is always undefined.
 */
export const NoBody = createParamDecorator((_data: unknown, context: ExecutionContext): undefined => {
  const { body } = context.switchToHttp().getRequest<FastifyRequest>();
  if (body === undefined) return undefined;
  if (!isPlainJsonObject(body)) throw new BadRequestException(NOT_AN_OBJECT);
  const fields = Object.keys(body);
  if (fields.length > 0) {
    throw new ValidationFailedException(
      fields.map((field) => ({ field, message: `${field} is not a known field` })),
    );
  }
  return undefined;
});
