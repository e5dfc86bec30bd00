import { Injectable, PipeTransform } from '@nestjs/common';
import { ValidationFailedException } from '../common/errors/validation-failed.exception';

/** Delivery ids are bigint: a positive integer up to 2^53 - 1 (returned as JSON numbers); else 400. */
@Injectable()
export class DeliveryIdPipe implements PipeTransform<string, string> {
  transform(value: string): string {
    const id = /^\d{1,16}$/.test(value) ? Number(value) : NaN;
    if (!Number.isSafeInteger(id) || id < 1) {
      throw new ValidationFailedException([
        { field: 'deliveryId', message: 'deliveryId must be a positive integer' },
      ]);
    }
    return String(id);
  }
}
