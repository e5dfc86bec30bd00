import type { SweepCase } from './sweep-cases';
import type { SweepResponse } from './sweep-client';

const HAL = 'application/hal+json;charset=UTF-8';
const ERROR_BODY_KEYS = ['error', 'message', 'path', 'requestId', 'status', 'timestamp'];
/** Contract section 8, cost of one request: an error body is at most 16 KiB. */
export const MAX_ERROR_BODY_BYTES = 16 * 1024;
const TIMESTAMP = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const LEAKS = /\bat .*\.(ts|js):\d+|\bSELECT\b|\bINSERT\b|QueryFailedError|node_modules/;

export class SweepViolation extends Error {}

function must(condition: unknown, message: string): asserts condition {
  if (!condition) throw new SweepViolation(message);
}

const excerpt = (res: SweepResponse) => res.text.slice(0, 400);

/** The contract's error body (section 4): its keys, their values, its size, nothing leaked. */
function checkErrorBody(c: SweepCase, res: SweepResponse, where: string): void {
  must(res.headers['content-type'] === HAL, `${where}: content-type ${res.headers['content-type']}`);
  must(res.bytes.length <= MAX_ERROR_BODY_BYTES, `${where}: error body of ${res.bytes.length} bytes`);
  let body: Record<string, unknown>;
  try {
    body = JSON.parse(res.text);
  } catch {
    throw new SweepViolation(`${where}: an error body that is not JSON: ${excerpt(res)}`);
  }
  const keys = Object.keys(body).filter((key) => key !== 'errors');
  must(keys.sort().join() === ERROR_BODY_KEYS.join(), `${where}: error body keys ${keys}: ${excerpt(res)}`);
  must(body.status === res.status, `${where}: error body status ${body.status}`);
  must(typeof body.error === 'string' && typeof body.message === 'string', `${where}: ${excerpt(res)}`);
  must(TIMESTAMP.test(String(body.timestamp)), `${where}: timestamp ${body.timestamp}`);
  must(body.requestId === res.headers['x-request-id'], `${where}: requestId ${body.requestId}`);
  // A very long path is shown cut, marked with "…", to keep the body within 16 KiB (contract 8).
  const sentPath = c.request.path.split('?')[0];
  const shownPath = String(body.path);
  const cutOfSent = shownPath.endsWith('…') && sentPath.startsWith(shownPath.slice(0, -1));
  must(shownPath === sentPath || cutOfSent, `${where}: path ${JSON.stringify(body.path)}`);
  if (body.errors !== undefined) {
    const errors = body.errors as Array<Record<string, unknown>>;
    must(Array.isArray(errors) && errors.length <= 21, `${where}: errors ${excerpt(res)}`);
    must(
      errors.every((e) => typeof e.field === 'string' && typeof e.message === 'string'),
      `${where}: errors entries ${excerpt(res)}`,
    );
  }
  must(!LEAKS.test(res.text), `${where}: a stack trace or SQL in ${excerpt(res)}`);
  if (res.status === 429) must(res.headers['retry-after'], `${where}: 429 without Retry-After`);
}

/**
 * What holds of every answer: never a 5xx, always an X-Request-Id, the error body on every 4xx,
 * none of `secrets` in it, and the status the contract names for the case when it names one (a
 * rate limit may always answer first).
 */
export function checkAnswer(c: SweepCase, res: SweepResponse, secrets: string[] = []): void {
  const where = `${c.request.method} ${c.request.path} → ${res.status}`;
  must(res.status < 500, `${where}: a server error: ${excerpt(res)}`);
  const requestId = res.headers['x-request-id'];
  must(typeof requestId === 'string' && requestId.length > 0, `${where}: no X-Request-Id`);
  if (c.requestId === 'new')
    must(UUID.test(requestId), `${where}: X-Request-Id ${requestId} is not a new UUID`);
  else if (c.requestId !== undefined) must(requestId === c.requestId, `${where}: X-Request-Id ${requestId}`);
  if (res.status >= 400) checkErrorBody(c, res, where);
  if (c.expected && res.status !== 429) {
    must(
      c.expected.includes(res.status),
      `${where}, expected ${c.expected.join(' or ')}: ${c.why}: ${excerpt(res)}`,
    );
  }
  for (const secret of secrets)
    must(!res.text.includes(secret), `${where}: another tenant's data: ${excerpt(res)}`);
}
