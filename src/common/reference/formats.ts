/** The spec's formats (Formats table), as predicates shared by validators. */

/** YYYY-MM-DDTHH:mm:ss.sssZ, UTC. */
export const ISO_DATE_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
/**
 * An e-mail address as JSON Schema's `email` format reads it (RFC 5321: ASCII, dot-atom local part),
 * the regex of ajv-formats' full mode, which receivers validate delivered bodies with: a licence's
 * e-mail must pass it as well as isEmail, so every delivered body is valid against its catalogue schema.
 */
export const SCHEMA_EMAIL =
  /^[a-z0-9!#$%&'*+/=?^_`{|}~-]+(?:\.[a-z0-9!#$%&'*+/=?^_`{|}~-]+)*@(?:[a-z0-9](?:[a-z0-9-]*[a-z0-9])?\.)+[a-z0-9](?:[a-z0-9-]*[a-z0-9])?$/i;
/** Country code with plus sign. */
export const PHONE_NUMBER_CODE = /^\+\d{1,3}$/;
/** Area code plus number, digits only. */
export const PHONE_NUMBER = /^\d{8,15}$/;

function checkDigit(digits: number[], weights: number[]): number {
  const sum = weights.reduce((acc, w, i) => acc + w * digits[i], 0);
  const rest = sum % 11;
  return rest < 2 ? 0 : 11 - rest;
}

/** CPF: 11 digits, no formatting, both check digits right, not all the same digit. */
export function isCpf(value: unknown): boolean {
  if (typeof value !== 'string' || !/^\d{11}$/.test(value) || /^(\d)\1{10}$/.test(value)) return false;
  const d = [...value].map(Number);
  const first = checkDigit(d, [10, 9, 8, 7, 6, 5, 4, 3, 2]);
  const second = checkDigit(d, [11, 10, 9, 8, 7, 6, 5, 4, 3, 2]);
  return d[9] === first && d[10] === second;
}

/** CNPJ: 14 digits, no formatting, both check digits right, not all the same digit. */
export function isCnpj(value: unknown): boolean {
  if (typeof value !== 'string' || !/^\d{14}$/.test(value) || /^(\d)\1{13}$/.test(value)) return false;
  const d = [...value].map(Number);
  const first = checkDigit(d, [5, 4, 3, 2, 9, 8, 7, 6, 5, 4, 3, 2]);
  const second = checkDigit(d, [6, 5, 4, 3, 2, 9, 8, 7, 6, 5, 4, 3, 2]);
  return d[12] === first && d[13] === second;
}
