import { ValidateIf, ValidationOptions } from 'class-validator';

/**
 * Like @IsOptional(), but only an absent field skips the other rules: `null` is checked, and so
 * refused by them. @IsOptional() lets null through, and a PATCH with `{"password": null}` reached
 * the service as a value to hash (a 500).
 */
export const OptionalNotNull = (options?: ValidationOptions) =>
  ValidateIf((_object, value) => value !== undefined, options);
