import type { ApiClient, Delivery } from './api';

/** How often and how long the portal looks for a new attempt's record. */
export const POLL_INTERVAL_MS = 1000;
export const POLL_ATTEMPTS = 90;

const sleep = (ms: number, signal: AbortSignal) =>
  new Promise<void>((resolve) => {
    const timer = setTimeout(resolve, ms);
    signal.addEventListener('abort', () => {
      clearTimeout(timer);
      resolve();
    });
  });

/** The ids of the records of `trigger` for `eventId` already in the history (before an action). */
export async function knownAttempts(api: ApiClient, id: number, trigger: string): Promise<Set<string>> {
  const page = await api.deliveries(id, { trigger }, 0, 100);
  return new Set(page.content.map((d) => String(d.id)));
}

/**
 * Looks for the record of the attempt that an action (test event, resend) queued: the first record
 * of `trigger` for `eventId` that was not in `known`. Records are written when an attempt ends, so
 * it carries the outcome. Undefined when none arrived in time or `signal` aborted.
 */
export async function waitForAttempt(
  api: ApiClient,
  id: number,
  trigger: string,
  eventId: number | string,
  known: Set<string>,
  signal: AbortSignal,
): Promise<Delivery | undefined> {
  for (let attempt = 0; attempt < POLL_ATTEMPTS && !signal.aborted; attempt++) {
    const page = await api.deliveries(id, { trigger }, 0, 20);
    const found = page.content.find((d) => String(d.eventId) === String(eventId) && !known.has(String(d.id)));
    if (found) return found;
    await sleep(POLL_INTERVAL_MS, signal);
  }
  return undefined;
}

/** One line for an attempt's outcome. */
export function outcomeText(d: Delivery): string {
  const code = d.httpStatusCode !== null ? `HTTP ${d.httpStatusCode}` : 'no answer';
  const duration = d.durationMs !== null && d.durationMs !== undefined ? `, ${d.durationMs} ms` : '';
  const why = d.status === 'FAILED' && d.errorMessage ? `: ${d.errorMessage}` : '';
  return `${d.status} (${code}${duration})${why}`;
}
