import type { Delivery } from '../api/types';

/** Short UTC date-time for lists. */
export const formatTime = (iso: string | null | undefined) =>
  iso ? iso.replace('T', ' ').replace(/\.\d{3}Z$/, ' UTC') : '—';

/** A datetime-local input's value (the browser's local time) as an ISO 8601 UTC instant. */
export function localInputToIso(value: string): string | undefined {
  if (!value) return undefined;
  const date = new Date(value);
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
