import type { FastifyRequest } from 'fastify';

/** Query parameters whose values never reach a log line (contract section 8, Logs), compared in lower case. */
const SECRET_PARAMETERS = new Set(['token', 'access_token', 'password', 'secret', 'key']);

export const REDACTED = '[REDACTED]';

/** The parameter's name as the service reads it: %-escapes and `+` decoded, lower case. */
function parameterName(pair: string): string {
  const equals = pair.indexOf('=');
  const raw = (equals < 0 ? pair : pair.slice(0, equals)).replace(/\+/g, ' ');
  try {
    return decodeURIComponent(raw).toLowerCase();
  } catch {
    return raw.toLowerCase();
  }
}

/** `url` with the value of every secret query parameter replaced by [REDACTED]; everything else as sent. */
export function redactQueryString(url: string): string {
  const question = url.indexOf('?');
  if (question < 0) return url;
  const pairs = url.slice(question + 1).split('&');
  const shown = pairs.map((pair) =>
    SECRET_PARAMETERS.has(parameterName(pair)) ? `${pair.split('=', 1)[0]}=${REDACTED}` : pair,
  );
  return `${url.slice(0, question + 1)}${shown.join('&')}`;
}

/**
 * The `req` of Fastify's request lines ("incoming request"): Fastify's own fields, with the URL's
 * secret query values redacted (a token passed as `?access_token=` would otherwise be logged whole).
 */
export function serializeRequest(request: FastifyRequest): unknown {
  // A `req` logged by other code is left to pino's redaction as it is.
  if (typeof request?.url !== 'string') return request;
  return {
    method: request.method,
    url: redactQueryString(request.url),
    version: request.headers?.['accept-version'],
    host: request.host,
    remoteAddress: request.ip,
    remotePort: request.socket?.remotePort,
  };
}
