import { randomUUID } from 'node:crypto';
import type { IncomingMessage } from 'node:http';

const VALID = /^[A-Za-z0-9._-]{1,128}$/;

/** The caller's X-Request-Id when it is 1..128 of [A-Za-z0-9._-], else a new UUID (contract section 4). */
export function requestIdFor(req: IncomingMessage): string {
  const given = req.headers['x-request-id'];
  return typeof given === 'string' && VALID.test(given) ? given : randomUUID();
}
