/**
 * The counter's key: the limit's name and who is counted, nothing about the route. The library's
 * default key also holds the controller and handler names, which made the per-token limit a
 * per-token-per-endpoint limit (100 a minute on each endpoint instead of 100 in all).
 */
export function rateLimitKey(throttler: string, tracker: string): string {
  return `pis:${throttler}:${tracker}`;
}
