import { ValidationFailedException } from '../common/errors/validation-failed.exception';
import { MAX_STRING_LENGTH } from '../common/reference/enums';
import { hasControlCharacters } from '../common/validation/text-rules';
import { isNonPublicHost } from './webhook-url';

// The rules of a subscription body that its DTO cannot state: they depend on who asks or on the
// configuration (contract section 5).

/** An administrator's `tenant` in a body; undefined or null means "not given". */
export function tenantFromBody(value: unknown): string | undefined {
  if (value === undefined || value === null) return undefined;
  let message: string | undefined;
  if (typeof value !== 'string') message = 'tenant must be a string';
  else if (value.trim() === '') message = 'tenant must not be empty';
  else if ([...value].length > MAX_STRING_LENGTH)
    message = `tenant must be at most ${MAX_STRING_LENGTH} characters`;
  else if (hasControlCharacters(value)) message = 'tenant must not contain control characters';
  if (message) throw new ValidationFailedException([{ field: 'tenant', message }]);
  return value as string;
}

/** Literal private, loopback and link-local addresses: 400 unless allowed (contract section 5). */
export function checkUrlAllowed(url: string, allowPrivateNetworks: boolean): void {
  if (allowPrivateNetworks) return;
  if (isNonPublicHost(url)) {
    throw new ValidationFailedException([
      { field: 'url', message: 'url must not point to a private, loopback or link-local address' },
    ]);
  }
}

/** Duplicates collapsed, first occurrence kept (contract section 5). */
export const distinct = <T>(values: T[]): T[] => [...new Set(values)];
