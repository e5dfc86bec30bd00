import { ArgumentMetadata, ValidationPipe } from '@nestjs/common';
import { ValidationFailedException } from '../errors/validation-failed.exception';

/**
 * Nest's pipe turns a named route parameter typed `number` into `Number(value)` before the
 * parameter's own pipe runs, so "1e3" reached IdParamPipe as 1000 and "0x10" as 16: route
 * parameters stay the strings they came as, and their own pipe converts them.
 */
class StrictValidationPipe extends ValidationPipe {
  protected override transformPrimitive(value: unknown, metadata: ArgumentMetadata): unknown {
    return metadata.type === 'param' ? value : super.transformPrimitive(value, metadata);
  }
}

/**
 * The global pipe (APP_PIPE): unknown fields are a 400 naming them, types are not coerced from
 * JSON (a "true" string is not a boolean); query DTOs convert their own fields explicitly.
 */
export function createValidationPipe(): ValidationPipe {
  return new StrictValidationPipe({
    whitelist: true,
    forbidNonWhitelisted: true,
    forbidUnknownValues: true,
    transform: true,
    transformOptions: { enableImplicitConversion: false },
    validationError: { target: false, value: true }, // value: to tell missing from wrong; never echoed
    exceptionFactory: (errors) => ValidationFailedException.fromValidationErrors(errors),
  });
}
