import { Injectable, PipeTransform } from '@nestjs/common';
import { ValidationFailedException } from '../errors/validation-failed.exception';

const MAX_ID = 2_147_483_647;

/** Every `:id` is a positive integer within PostgreSQL's `integer`; anything else is a 400. */
@Injectable()
export class IdParamPipe implements PipeTransform<string, number> {
  transform(value: string): number {
    const id = /^\d{1,10}$/.test(value) ? Number(value) : NaN;
    if (!Number.isInteger(id) || id < 1 || id > MAX_ID) {
      throw new ValidationFailedException([{ field: 'id', message: 'id must be a positive integer' }]);
    }
    return id;
  }
}
