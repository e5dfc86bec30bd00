import { BadRequestException, ValidationError } from '@nestjs/common';
import { FieldError, MAX_LISTED_PROBLEMS, moreThanListed } from './error-body';

/** A 400 that names each offending field (the first 20, then how many more); the global filter renders `errors`. */
export class ValidationFailedException extends BadRequestException {
  constructor(readonly fieldErrors: FieldError[]) {
    const fields = fieldErrors.slice(0, MAX_LISTED_PROBLEMS).map((e) => e.field);
    super(`Validation failed: ${fields.join(', ')}${moreThanListed(fieldErrors.length)}`);
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
