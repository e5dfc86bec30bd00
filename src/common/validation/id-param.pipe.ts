import { NotFoundException, PipeTransform } from '@nestjs/common';
import { ValidationFailedException } from '../errors/validation-failed.exception';

/** PostgreSQL's `integer`: the largest id a row can have. */
export const MAX_ID = 2_147_483_647;

/**
 * Every `:id`: the decimal digits of a positive integer, leading zeros allowed ("007" is 7); anything
 * else is a 400. An id past PostgreSQL's `integer` is a valid id that no row has, so it is the
 * route's 404 with the message the route gives any missing id (`notFound`), answered here because
 * PostgreSQL refuses to compare it with an `integer` column (22003). Being a pipe, it answers before
 * the body is validated: a PUT with a bad body to such an id is a 404, to a missing id in range a 400.
 */
export class IdParamPipe implements PipeTransform<string, number> {
  constructor(private readonly notFound: (id: string) => string) {}

  transform(value: string): number {
    const digits = /^\d+$/.test(value) ? value.replace(/^0+/, '') : '';
    if (digits === '') {
      throw new ValidationFailedException([{ field: 'id', message: 'id must be a positive integer' }]);
    }
    if (digits.length > String(MAX_ID).length || Number(digits) > MAX_ID) {
      throw new NotFoundException(this.notFound(digits));
    }
    return Number(digits);
  }
}
