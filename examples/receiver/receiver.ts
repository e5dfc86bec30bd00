/**
 * A webhook receiver for the Partner Integration Service, using Node's standard library and the
 * Standard Webhooks reference library (`npm install standardwebhooks`), so it can be copied as it
 * is. It does what the spec asks of receivers (Events, delivery rules 5 and 7):
 * - verifies the Standard Webhooks signature (`webhook-signature` over webhook-id, webhook-timestamp
 *   and the raw body) with the subscription's `whsec_` secret, which also refuses a
 *   `webhook-timestamp` more than 5 minutes off;
 * - checks the custom header (headerName/headerValue of the subscription) in constant time;
 * - verifies the payload structure and checks `tenant` against an allow-list;
 * - rejects timestamps outside a replay window;
 * - drops duplicates by `webhook-id` (the same on every copy and every resend of an event) and by
 *   eventType + timestamp + licence.code (deliveries are at-least-once);
 * - answers 2xx at once and processes afterwards (the service waits at most 30 s).
 */
import { createHash, timingSafeEqual } from 'node:crypto';
import { createServer, Server, ServerOptions } from 'node:https';
import type { IncomingHttpHeaders, IncomingMessage, ServerResponse } from 'node:http';
import { Webhook, WebhookVerificationError } from 'standardwebhooks';

export type EventType = 'LICENCE_CREATED_SUCCESS' | 'LICENCE_CREATED_FAILED';

export interface Licence {
  code: string;
  clientId: number;
  planId: number;
  name: string;
  email: string;
  phoneNumber: string;
  status: 'CREATED' | 'ACTIVATED' | 'SUSPENDED' | 'DEACTIVATED';
  maxRedemptions: number;
  pricing: number;
}

export interface LicenceEvent {
  eventType: EventType;
  timestamp: string;
  tenant: string;
  licence: Licence | null;
  error: { message: string; type: string } | null;
}

export interface ReceiverOptions {
  /**
   * The subscription's signing secrets (`whsec_…`, GET /webhooks/subscriptions/{id}/secret): a
   * delivery must carry a valid signature of one of them (401 otherwise). Usually one; while you
   * move to a rotated secret, both. Read at each request, so it may change while running. Left out
   * or empty: signatures are not checked (not recommended).
   */
  signingSecrets?: string[];
  /** The subscription's headerName/headerValue; when set, requests without it are refused (401). */
  headerName?: string;
  headerValue?: string;
  /** Tenants this receiver accepts events for (403 otherwise). */
  allowedTenants: string[];
  /** How far an event's timestamp may be from now (default 5 minutes). */
  replayWindowMs?: number;
  /** Your processing; runs after the 2xx has been sent. */
  onEvent: (event: LicenceEvent) => void | Promise<void>;
  /** Called when processing throws (default: console.error). */
  onError?: (error: unknown, event: LicenceEvent) => void;
  /** Called for each refused request, with the status and reason (default: nothing). */
  onReject?: (status: number, reason: string) => void;
  now?: () => number;
}

const MAX_BODY_BYTES = 1_048_576;
const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

const digest = (value: string) => createHash('sha256').update(value, 'utf8').digest();

/** Constant-time comparison of two strings (hashing first makes the lengths equal). */
export function safeEqual(a: string, b: string): boolean {
  return timingSafeEqual(digest(a), digest(b));
}

const isObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

/** Structure check of the payload (spec: Webhook event payload). Returns a reason when invalid. */
export function validateEvent(body: unknown): string | undefined {
  if (!isObject(body)) return 'body is not a JSON object';
  const keys = Object.keys(body).sort().join(',');
  if (keys !== 'error,eventType,licence,tenant,timestamp') return `unexpected fields: ${keys}`;
  if (body.eventType !== 'LICENCE_CREATED_SUCCESS' && body.eventType !== 'LICENCE_CREATED_FAILED')
    return 'bad eventType';
  if (typeof body.timestamp !== 'string' || !ISO.test(body.timestamp)) return 'bad timestamp';
  if (typeof body.tenant !== 'string' || body.tenant.length === 0) return 'bad tenant';
  if (body.eventType === 'LICENCE_CREATED_SUCCESS') {
    const l = body.licence;
    if (!isObject(l) || body.error !== null) return 'a success event carries a licence and no error';
    if (typeof l.code !== 'string' || l.code.length === 0) return 'bad licence.code';
  } else {
    const e = body.error;
    if (!isObject(e) || body.licence !== null) return 'a failure event carries an error and no licence';
    if (typeof e.message !== 'string' || typeof e.type !== 'string') return 'bad error object';
  }
  return undefined;
}

/**
 * The Standard Webhooks check: undefined when one of `secrets` signed this body with these headers
 * (and `webhook-timestamp` is within 5 minutes), else why not.
 */
export function signatureProblem(
  secrets: string[],
  rawBody: string,
  headers: IncomingHttpHeaders,
): string | undefined {
  let problem = 'no signing secret configured';
  for (const secret of secrets) {
    try {
      new Webhook(secret).verify(rawBody, headers as Record<string, string>);
      return undefined;
    } catch (error) {
      if (!(error instanceof WebhookVerificationError)) throw error;
      problem = error.message;
    }
  }
  return `bad signature: ${problem}`;
}

/** The duplicate key of the spec (success events); failure events use the error instead of the code. */
export function duplicateKey(event: LicenceEvent): string {
  const tail = event.licence ? event.licence.code : `${event.error?.type}:${event.error?.message}`;
  return `${event.eventType}|${event.timestamp}|${event.tenant}|${tail}`;
}

export function createWebhookHandler(
  options: ReceiverOptions,
): (req: IncomingMessage, res: ServerResponse) => void {
  const windowMs = options.replayWindowMs ?? 5 * 60_000;
  const now = options.now ?? Date.now;
  const tenants = new Set(options.allowedTenants);
  // Keys are kept a little longer than the replay window: anything older is refused as a replay anyway.
  const seen = new Map<string, number>();
  const reject = (res: ServerResponse, status: number, reason: string) => {
    options.onReject?.(status, reason);
    res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify({ error: reason }));
  };

  return (req, res) => {
    if (req.method !== 'POST') return reject(res, 405, 'POST only');
    if (options.headerName) {
      const given = req.headers[options.headerName.toLowerCase()];
      if (typeof given !== 'string' || !safeEqual(given, options.headerValue ?? '')) {
        req.resume();
        return reject(res, 401, 'missing or wrong authentication header');
      }
    }
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > MAX_BODY_BYTES) req.destroy();
      else chunks.push(chunk);
    });
    req.on('end', () => {
      // The signature covers the raw bytes: verify before parsing (and never re-serialise).
      const raw = Buffer.concat(chunks).toString('utf8');
      const secrets = options.signingSecrets ?? [];
      if (secrets.length > 0) {
        const problem = signatureProblem(secrets, raw, req.headers);
        if (problem) return reject(res, 401, problem);
      }
      let body: unknown;
      try {
        body = JSON.parse(raw);
      } catch {
        return reject(res, 400, 'body is not JSON');
      }
      const problem = validateEvent(body);
      if (problem) return reject(res, 400, problem);
      const event = body as LicenceEvent;
      if (!tenants.has(event.tenant)) return reject(res, 403, 'unexpected tenant');
      const age = Math.abs(now() - Date.parse(event.timestamp));
      if (age > windowMs) return reject(res, 400, 'timestamp outside the replay window');

      for (const [key, expires] of seen) if (expires < now()) seen.delete(key);
      // webhook-id is the event's id on every copy and every resend (the idempotency key); the
      // content key also catches the same licence event published twice.
      const webhookId = req.headers['webhook-id'];
      const keys = [
        duplicateKey(event),
        ...(typeof webhookId === 'string' ? [`webhook-id|${webhookId}`] : []),
      ];
      const duplicate = keys.some((key) => seen.has(key));
      for (const key of keys) seen.set(key, now() + 2 * windowMs);
      // 2xx first, work afterwards. A duplicate is acknowledged too, so the service stops sending it.
      res.writeHead(200, { 'content-type': 'application/json' }).end('{"received":true}');
      if (duplicate) return;
      setImmediate(() => {
        Promise.resolve()
          .then(() => options.onEvent(event))
          .catch((error) =>
            (options.onError ?? ((e) => console.error('processing failed', e)))(error, event),
          );
      });
    });
  };
}

export function createReceiver(tls: ServerOptions, options: ReceiverOptions): Server {
  return createServer({ ...tls, keepAlive: true }, createWebhookHandler(options));
}
