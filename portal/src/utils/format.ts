import type { Delivery } from '../api/types';

/** Short UTC date-time for lists. */
export const formatTime = (iso: string | null | undefined) =>
  iso ? iso.replace('T', ' ').replace(/\.\d{3}Z$/, ' UTC') : '—';

/**
 * A datetime-local input's value read as UTC, the time every page shows (formatTime), whatever the
 * browser's own time zone: an ISO 8601 instant, or undefined when empty or not a date-time.
 */
export function utcInputToIso(value: string): string | undefined {
  if (!/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d{1,3})?)?$/.test(value)) return undefined;
  const date = new Date(`${value}Z`);
  return Number.isNaN(date.getTime()) ? undefined : date.toISOString();
}

/** One line for an attempt's outcome. */
export function outcomeText(
  d: Pick<Delivery, 'status' | 'httpStatusCode' | 'durationMs' | 'errorMessage'>,
): string {
  const code = d.httpStatusCode !== null ? `HTTP ${d.httpStatusCode}` : 'no answer';
  const duration = d.durationMs !== null ? `, ${d.durationMs} ms` : '';
  const why = d.status === 'FAILED' && d.errorMessage ? `: ${d.errorMessage}` : '';
  return `${d.status} (${code}${duration})${why}`;
}

/** "HTTP 200 · 12 ms" for a record's card. */
export function answerText(d: Pick<Delivery, 'httpStatusCode' | 'durationMs'>): string {
  const code = d.httpStatusCode !== null ? `HTTP ${d.httpStatusCode}` : 'no answer';
  return d.durationMs !== null ? `${code} · ${d.durationMs} ms` : code;
}
