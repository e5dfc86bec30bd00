import { QueryFailedError } from 'typeorm';

/** Seconds a client is asked to wait while the database is unreachable (contract section 8). */
export const DATABASE_RETRY_AFTER_SECONDS = 5;

/** Socket errors of the connection to PostgreSQL (Node's codes, as pg passes them on). */
const SOCKET_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ECONNABORTED',
  'EPIPE',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'EADDRNOTAVAIL',
  'ENOTFOUND',
  'EAI_AGAIN',
]);

/**
 * SQLSTATEs of a server that is going away or not there yet: class 08 (connection exception),
 * 57P01 admin shutdown, 57P02 crash shutdown, 57P03 cannot connect now (starting up, shutting
 * down, in recovery), 53300 too many connections.
 */
const UNAVAILABLE_STATE = /^(08...|57P0[123]|53300)$/;

/** pg's own texts for a connection that broke or never came (they carry no code). */
const UNAVAILABLE_TEXT =
  /Connection terminated|timeout exceeded when trying to connect|Client has encountered a connection error|Client was closed and is not queryable|Connection ended unexpectedly/i;

/**
 * Whether `error` says the database cannot be reached right now (a 503 to retry), rather than that
 * a query was wrong: pg's connection errors as they come, or wrapped by TypeORM (QueryFailedError)
 * or in `cause`.
 */
export function isDatabaseUnavailable(error: unknown): boolean {
  for (let current = error, depth = 0; current && depth < 5; depth++) {
    const { code, message, syscall } = current as { code?: unknown; message?: unknown; syscall?: unknown };
    if (typeof code === 'string' && (SOCKET_CODES.has(code) || UNAVAILABLE_STATE.test(code))) return true;
    // A Unix socket that is not there: the server is down (it removes its socket when it stops).
    if (code === 'ENOENT' && syscall === 'connect') return true;
    if (typeof message === 'string' && UNAVAILABLE_TEXT.test(message)) return true;
    current =
      current instanceof QueryFailedError
        ? (current.driverError as unknown)
        : (current as { cause?: unknown }).cause;
  }
  return false;
}
