import { ValidateBy, ValidationOptions } from 'class-validator';

/*
 * String rules shared by request bodies and queries. Each passes values that are not strings, so a
 * wrong type is reported once, by @IsString, not by every rule.
 */

const LINE_BREAKS = new Set([0x09, 0x0a, 0x0d]);

/** C0 and C1 control characters and DEL; `allowLineBreaks` lets tab, CR and LF through. */
export function hasControlCharacters(text: string, allowLineBreaks = false): boolean {
  for (const char of text) {
    const code = char.codePointAt(0)!;
    if ((code <= 0x1f || (code >= 0x7f && code <= 0x9f)) && !(allowLineBreaks && LINE_BREAKS.has(code)))
      return true;
  }
  return false;
}

/**
 * Between `min` and `max` characters as PostgreSQL's varchar counts them (code points, not UTF-16
 * units). class-validator's @MinLength/@MaxLength leave out U+FE0E/U+FE0F, so 255 letters and a
 * variation selector passed them and PostgreSQL refused the row (a 400 naming no field).
 */
export const Chars = (min: number, max: number, options?: ValidationOptions) =>
  ValidateBy(
    {
      name: 'chars',
      constraints: [min, max],
      validator: {
        validate: (value: unknown) => {
          if (typeof value !== 'string') return true;
          const length = [...value].length;
          return length >= min && length <= max;
        },
        defaultMessage: (args) =>
          min > 0
            ? `${args?.property} must be ${min} to ${max} characters`
            : `${args?.property} must be at most ${max} characters`,
      },
    },
    options,
  );

/** At most `max` characters as PostgreSQL's varchar counts them (see Chars). */
export const MaxChars = (max: number, options?: ValidationOptions) => Chars(0, max, options);

/** Not empty and not only white space. */
export const NotBlank = (options?: ValidationOptions) =>
  ValidateBy(
    {
      name: 'notBlank',
      validator: {
        validate: (value: unknown) => typeof value !== 'string' || value.trim().length > 0,
        defaultMessage: (args) => `${args?.property} must not be empty`,
      },
    },
    options,
  );

/** No control characters; `allowLineBreaks` lets tab, CR and LF through (descriptions). */
export const NoControlCharacters = (allowLineBreaks = false, options?: ValidationOptions) =>
  ValidateBy(
    {
      name: 'noControlCharacters',
      validator: {
        validate: (value: unknown) =>
          typeof value !== 'string' || !hasControlCharacters(value, allowLineBreaks),
        defaultMessage: (args) => `${args?.property} must not contain control characters`,
      },
    },
    options,
  );
