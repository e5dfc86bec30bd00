import { ValidationPipe } from '@nestjs/common';
import { ValidationFailedException } from '../errors/validation-failed.exception';

/**
 * The global pipe (APP_PIPE): unknown fields are a 400 naming them, types are not coerced from
 * JSON (a "true" string is not a boolean); query DTOs convert their own fields explicitly.
 */
export function createValidationPipe(): ValidationPipe {
  return new ValidationPipe({
    whitelist: true,
    forbidNonWhitelisted: true,
    forbidUnknownValues: true,
    transform: true,
    transformOptions: { enableImplicitConversion: false },
    validationError: { target: false, value: true }, // value: to tell missing from wrong; never echoed
    exceptionFactory: (errors) => ValidationFailedException.fromValidationErrors(errors),
  });
}
