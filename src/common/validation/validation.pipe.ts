import { ArgumentMetadata, BadRequestException, ValidationPipe } from '@nestjs/common';
import { ValidationFailedException } from '../errors/validation-failed.exception';

/**
 * Nest's pipe turns a named route parameter typed `number` into `Number(value)` before the
 * parameter's own pipe runs, so "1e3" reached IdParamPipe as 1000 and "0x10" as 16: route
 * parameters stay the strings they came as, and their own pipe converts them.
 *
 * A body DTO takes a JSON object only (contract section 4): Nest validates `null` as an empty object
 * (a PATCH of nothing, 200) and an array item by item (an error per item). No body at all stays
 * allowed, for the routes whose body is optional.
 */
class StrictValidationPipe extends ValidationPipe {
  override transform(value: unknown, metadata: ArgumentMetadata): Promise<unknown> {
    if (metadata.type === 'body' && value !== undefined && !isPlainJsonObject(value)) {
      throw new BadRequestException(NOT_AN_OBJECT);
    }
    return super.transform(value, metadata);
  }

  protected override transformPrimitive(value: unknown, metadata: ArgumentMetadata): unknown {
    return metadata.type === 'param' ? value : super.transformPrimitive(value, metadata);
  }
}

/** What a body that is not a JSON object (null, an array, a string) is answered: 400. */
export const NOT_AN_OBJECT = 'Request body must be a JSON object';

export const isPlainJsonObject = (value: unknown): value is object =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

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
