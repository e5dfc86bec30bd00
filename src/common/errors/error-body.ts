import { STATUS_CODES } from 'node:http';

export interface FieldError {
  field: string;
  message: string;
}

/** Service contract section 4: the one error body of the API. */
export interface ErrorBody {
  timestamp: string;
  status: number;
  error: string;
  message: string;
  path: string;
  requestId: string;
  errors?: FieldError[];
}

/** Contract section 8, cost of one request: an error body lists at most 20 problems, then `and N more`. */
export const MAX_LISTED_PROBLEMS = 20;

/**
 * The longest texts an error body shows, in UTF-16 code units. Each code unit takes at most 3
 * bytes in the JSON (control characters and lone surrogates are shown as U+FFFD), so 20 problems
 * and the rest stay under 16 KiB (contract section 8), whatever the client sent.
 */
const LONGEST = { path: 512, message: 1_100, field: 48, fieldMessage: 128 };

/** Control characters (JSON.stringify writes some as 6 bytes) and lone surrogates (always 6). */
const SHOWN_AS_REPLACEMENT = /[\p{Cc}\p{Cs}]/gu;

/** `text` as an error body shows it: at most `longest` code units, the cut marked with "…". */
function shown(text: string, longest: number): string {
  const cut = text.length > longest ? `${text.slice(0, longest - 1)}…` : text;
  return cut.replace(SHOWN_AS_REPLACEMENT, '\uFFFD');
}

/** The problems a body lists: the first MAX_LISTED_PROBLEMS, each within its length. */
function listed(errors: FieldError[]): FieldError[] {
  return errors.slice(0, MAX_LISTED_PROBLEMS).map(({ field, message }) => ({
    field: shown(field, LONGEST.field),
    message: shown(message, LONGEST.fieldMessage),
  }));
}

/** `and N more` after the first MAX_LISTED_PROBLEMS of `count` problems, or nothing. */
export function moreThanListed(count: number): string {
  return count > MAX_LISTED_PROBLEMS ? ` and ${count - MAX_LISTED_PROBLEMS} more` : '';
}

export function errorBody(
  status: number,
  message: string,
  path: string,
  requestId: string,
  errors?: FieldError[],
): ErrorBody {
  return {
    timestamp: new Date().toISOString(),
    status,
    error: STATUS_CODES[status] ?? 'Error',
    message: shown(message, LONGEST.message),
    path: shown(path, LONGEST.path),
    requestId,
    ...(errors ? { errors: listed(errors) } : {}),
  };
}
