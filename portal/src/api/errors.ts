/** A failed call: the HTTP status (0 when no answer arrived) and what the service said. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly serviceMessage: string | undefined,
    readonly retryAfterSeconds?: number,
    readonly fieldErrors: Array<{ field: string; message: string }> = [],
    readonly requestId?: string,
  ) {
    super(describeFailure(status, serviceMessage, retryAfterSeconds, fieldErrors));
    this.name = 'ApiError';
  }

  /** From a refused answer: its status, Retry-After and error body (contract section 4), if any. */
  static fromResponse(response: Response, body: unknown): ApiError {
    const error = (typeof body === 'object' && body !== null ? body : {}) as {
      message?: unknown;
      errors?: unknown;
      requestId?: unknown;
    };
    return new ApiError(
      response.status,
      typeof error.message === 'string' ? error.message : undefined,
      parseRetryAfter(response.headers.get('Retry-After')),
      Array.isArray(error.errors) ? (error.errors as Array<{ field: string; message: string }>) : [],
      typeof error.requestId === 'string' ? error.requestId : undefined,
    );
  }
}

/** A 400's field errors shown by a form: each field's words beside it, the rest in one summary. */
export interface FormErrors {
  /** By the API's field name, for the fields the form shows. */
  byField: ReadonlyMap<string, string>;
  /** What the form cannot say beside a field (other fields, other failures); undefined: nothing. */
  summary: unknown;
}

/** A failure split for a form that shows the fields named in `shown` (the API's field names). */
export function formErrors(error: unknown, shown: ReadonlySet<string>): FormErrors {
  if (!(error instanceof ApiError) || error.fieldErrors.length === 0)
    return { byField: new Map(), summary: error };
  const byField = new Map<string, string>();
  const elsewhere = error.fieldErrors.filter(({ field, message }) => {
    if (!shown.has(field)) return true;
    byField.set(field, byField.has(field) ? `${byField.get(field)}; ${message}` : message);
    return false;
  });
  const { status, serviceMessage, retryAfterSeconds, requestId } = error;
  return {
    byField,
    summary: elsewhere.length
      ? new ApiError(status, serviceMessage, retryAfterSeconds, elsewhere, requestId)
      : undefined,
  };
}

/**
 * Retry-After (RFC 9110): delay-seconds or an HTTP-date; whole seconds to wait from `now`, or
 * undefined when the header is absent or unreadable.
 */
export function parseRetryAfter(value: string | null | undefined, now = Date.now()): number | undefined {
  if (value === null || value === undefined) return undefined;
  const text = value.trim();
  if (/^\d+$/.test(text)) return Number(text);
  if (text === '' || /^[\d.+-]+$/.test(text)) return undefined;
  const date = Date.parse(text);
  if (Number.isNaN(date)) return undefined;
  return Math.max(0, Math.ceil((date - now) / 1000));
}

const seconds = (n: number) => (n === 1 ? '1 second' : `${n} seconds`);

/** The words shown for a failed call. */
export function describeFailure(
  status: number,
  serviceMessage?: string,
  retryAfterSeconds?: number,
  fieldErrors: Array<{ field: string; message: string }> = [],
): string {
  const said = serviceMessage ? ` The service said: ${serviceMessage}` : '';
  const wait = retryAfterSeconds !== undefined ? ` Try again in ${seconds(retryAfterSeconds)}.` : '';
  if (status === 0) return 'The service could not be reached. Check your connection and try again.';
  if (status === 400) {
    const details = fieldErrors.map((e) => `${e.field}: ${e.message}`).join('; ');
    return `The request was refused as invalid: ${details || serviceMessage || 'bad request'}.`;
  }
  if (status === 401) return 'Your session has expired: log in again.';
  if (status === 403)
    return `You are not allowed to do this (your account or role lacks the permission).${said}`;
  if (status === 404) return 'Not found: it may have been deleted, or it is not yours to see.';
  if (status === 409) return `This cannot be done in the current state.${said}`;
  if (status === 413) return 'The request is too large.';
  if (status === 429) {
    return retryAfterSeconds !== undefined
      ? `Too many requests: wait ${seconds(retryAfterSeconds)} before trying again.`
      : 'Too many requests: wait a minute before trying again.';
  }
  if (status === 503) return `The service is temporarily unavailable.${wait || ' Try again in a moment.'}`;
  if (status >= 500)
    return `The service failed to answer this request (HTTP ${status}). Try again later.${wait}`;
  return `The request failed (HTTP ${status}).${said}`;
}

/** Words for anything thrown: ApiError's own, or a plain fallback. */
export function errorText(error: unknown): string {
  if (error instanceof ApiError) return error.message;
  return 'Something went wrong in the portal. Reload the page and try again.';
}
