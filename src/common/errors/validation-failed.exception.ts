import { BadRequestException, ValidationError } from '@nestjs/common';
import type { FieldError } from './error-body';

/** A 400 that names each offending field; the global filter renders `errors`. */
export class ValidationFailedException extends BadRequestException {
  constructor(readonly fieldErrors: FieldError[]) {
    super(
      fieldErrors.length === 1
        ? `Validation failed: ${fieldErrors[0].field}`
        : `Validation failed: ${fieldErrors.map((e) => e.field).join(', ')}`,
    );
  }

  static fromValidationErrors(errors: ValidationError[]): ValidationFailedException {
    return new ValidationFailedException(flatten(errors));
  }
}

function flatten(errors: ValidationError[], prefix = ''): FieldError[] {
  const out: FieldError[] = [];
  for (const error of errors) {
    const field = prefix + error.property;
    const messages = Object.values(error.constraints ?? {});
    if (messages.length > 0) {
      // One entry per field: the whitelist's "property x should not exist" said plainly, a missing
      // value as required, else the first rule that failed. The value itself is never echoed.
      let message = messages[0];
      if (error.constraints?.whitelistValidation) message = `${field} is not a known field`;
      else if (error.value === undefined) message = `${field} is required`;
      else if (error.value === null) message = `${field} must not be null`;
      out.push({ field, message });
    }
    if (error.children?.length) out.push(...flatten(error.children, `${field}.`));
  }
  return out;
}
