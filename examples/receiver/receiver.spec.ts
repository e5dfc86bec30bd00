import { randomBytes } from 'node:crypto';
import { createServer, Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Webhook } from 'standardwebhooks';
import {
  createWebhookHandler,
  duplicateKey,
  LicenceEvent,
  safeEqual,
  signatureProblem,
  validateEvent,
} from './receiver';

const success: LicenceEvent = {
  eventType: 'LICENCE_CREATED_SUCCESS',
  timestamp: '2026-11-21T10:00:00.000Z',
  tenant: 'acme',
  licence: {
    code: 'LIC-1',
    clientId: 1,
    planId: 2,
    name: 'Ana',
    email: 'ana@example.com',
    phoneNumber: '11987654321',
    status: 'CREATED',
    maxRedemptions: 1,
    pricing: 10.5,
  },
  error: null,
};

describe('example receiver checks', () => {
  it('accepts the spec payloads and rejects malformed ones', () => {
    expect(validateEvent(success)).toBeUndefined();
    expect(
      validateEvent({
        ...success,
        eventType: 'LICENCE_CREATED_FAILED',
        licence: null,
        error: { message: 'm', type: 'T' },
      }),
    ).toBeUndefined();
    expect(validateEvent({ ...success, extra: 1 })).toMatch(/unexpected fields/);
    expect(validateEvent({ ...success, timestamp: '2026-11-21' })).toBe('bad timestamp');
    expect(validateEvent({ ...success, error: { message: 'm', type: 'T' } })).toMatch(/success event/);
    expect(validateEvent([])).toBe('body is not a JSON object');
  });

  it('keys duplicates by eventType, timestamp and licence code', () => {
    expect(duplicateKey(success)).toBe(duplicateKey({ ...success }));
    expect(duplicateKey(success)).not.toBe(
      duplicateKey({ ...success, timestamp: '2026-11-21T10:00:00.001Z' }),
    );
    expect(duplicateKey(success)).not.toBe(
      duplicateKey({ ...success, licence: { ...success.licence!, code: 'LIC-2' } }),
    );
  });

  it('compares secrets of any length', () => {
    expect(safeEqual('abc', 'abc')).toBe(true);
    expect(safeEqual('abc', 'abd')).toBe(false);
    expect(safeEqual('abc', 'abcd')).toBe(false);
  });
});

describe('example receiver: signatures and resend-safe de-duplication', () => {
  const secret = `whsec_${randomBytes(24).toString('base64')}`;
  const processed: LicenceEvent[] = [];
  const rejected: Array<[number, string]> = [];
  const secrets = [secret];
  let server: Server;
  let url: string;

  beforeAll(async () => {
    // The handler on plain HTTP: what is checked here does not depend on TLS.
    server = createServer(
      createWebhookHandler({
        signingSecrets: secrets,
        allowedTenants: ['acme'],
        onEvent: (event) => void processed.push(event),
        onReject: (status, reason) => void rejected.push([status, reason]),
      }),
    );
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/webhooks`;
  });
  afterAll(async () => {
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });

  /** A delivery as the service sends it, signed with `key` at `at`. */
  const deliver = async (body: string, webhookId: string, key = secret, at = new Date()) => {
    const signature = new Webhook(key).sign(webhookId, at, body);
    const res = await fetch(url, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        'webhook-id': webhookId,
        'webhook-timestamp': String(Math.floor(at.getTime() / 1000)),
        'webhook-signature': signature,
      },
      body,
    });
    await new Promise((resolve) => setImmediate(resolve)); // onEvent runs after the answer
    return res.status;
  };
  const event = (code: string) =>
    JSON.stringify({
      ...success,
      timestamp: new Date().toISOString(),
      licence: { ...success.licence!, code },
    });

  it('processes a signed delivery once per webhook-id: a resend (same id, new timestamp) is acknowledged only', async () => {
    const body = event('LIC-A');
    await expect(deliver(body, 'evt-1')).resolves.toBe(200);
    await expect(deliver(body, 'evt-1', secret, new Date(Date.now() + 1000))).resolves.toBe(200);
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(processed.map((e) => e.licence?.code)).toEqual(['LIC-A']);
    // Another event (another id, another licence) is processed.
    await expect(deliver(event('LIC-B'), 'evt-2')).resolves.toBe(200);
    // The same id is a duplicate whatever the content: it is the service's idempotency key.
    await expect(deliver(event('LIC-C'), 'evt-2')).resolves.toBe(200);
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(processed.map((e) => e.licence?.code)).toEqual(['LIC-A', 'LIC-B']);
    expect(rejected).toEqual([]);
  });

  it('refuses a wrong signature, a stale webhook-timestamp and missing headers: 401', async () => {
    const other = `whsec_${randomBytes(24).toString('base64')}`;
    await expect(deliver(event('LIC-D'), 'evt-3', other)).resolves.toBe(401);
    const status = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: event('LIC-E'),
    }).then((res) => res.status);
    expect(status).toBe(401);
    await expect(deliver(event('LIC-F'), 'evt-4', secret, new Date(Date.now() - 10 * 60_000))).resolves.toBe(
      401,
    );
    expect(rejected).toEqual([
      [401, 'bad signature: No matching signature found'],
      [401, 'bad signature: Missing required headers'],
      [401, 'bad signature: Message timestamp too old'],
    ]);
    expect(processed.map((e) => e.licence?.code)).not.toContain('LIC-D');
  });

  it('accepts either of two configured secrets (moving to a rotated one), and a body signed twice', () => {
    const next = `whsec_${randomBytes(32).toString('base64')}`;
    const body = event('LIC-G');
    const at = new Date();
    const headers = {
      'webhook-id': 'evt-5',
      'webhook-timestamp': String(Math.floor(at.getTime() / 1000)),
      'webhook-signature': new Webhook(next).sign('evt-5', at, body),
    };
    expect(signatureProblem([secret], body, headers)).toBe('bad signature: No matching signature found');
    expect(signatureProblem([secret, next], body, headers)).toBeUndefined();
    const both = {
      ...headers,
      'webhook-signature': `${headers['webhook-signature']} ${new Webhook(secret).sign('evt-5', at, body)}`,
    };
    expect(signatureProblem([secret], body, both)).toBeUndefined();
    expect(signatureProblem([next], body, both)).toBeUndefined();
    expect(signatureProblem([secret], body.replace('LIC-G', 'LIC-H'), both)).toBe(
      'bad signature: No matching signature found',
    );
  });
});
