import { randomBytes } from 'node:crypto';
import type { IncomingHttpHeaders } from 'node:http';
import { UserRole, WebhookEvent } from '../src/common/reference/enums';
import { Subscription } from '../src/subscriptions/subscription.entity';
import { createSubscription, licence, startDispatcherApp, waitForDeliveries } from './support/dispatcher';
import { Receipt, Receiver } from './support/receiver';
import { signaturesOf, verifyReceipt } from './support/signatures';
import { testCa } from './support/test-ca';
import type { TestApp, TestUser } from './support/test-app';

/**
 * Issue 17: every delivery (event, resend, recover, test) verifies with `standardwebhooks`, during a
 * rotation's overlap (both signatures, each with its own secret) and after it (the old one refused);
 * a resent body is byte for byte the first, with the same webhook-id.
 */

const NO_MATCH = 'No matching signature found';
const PATH = '/webhooks/subscriptions';
/** Not multi-byte free: byte identity is checked on bytes a re-encoding could change. */
const HOLDER = 'João Ñandú — “€ 19,90” 😀';
const someKey = () => `whsec_${randomBytes(24).toString('base64')}`;

/** The delivery's headers with only one of its signatures (what an old or a new receiver checks). */
const withSignature = (headers: IncomingHttpHeaders, signature: string): IncomingHttpHeaders => ({
  ...headers,
  'webhook-signature': signature,
});

interface Harness {
  t: TestApp;
  admin: TestUser;
  partner: TestUser;
  receivers: Receiver[];
}

/** The app and its users, with the helpers every test here uses. */
function harness(overrides: Record<string, string> = {}) {
  const h = {} as Harness;
  beforeAll(async () => {
    h.t = await startDispatcherApp(overrides);
    h.admin = await h.t.createUser({ admin: true });
    h.partner = await h.t.createUser({ role: UserRole.ROLE_PARTNER });
    h.receivers = [];
  });
  afterAll(async () => {
    for (const r of h.receivers ?? []) await r.close();
    await h.t?.close();
  });

  const as = (user: TestUser) => ({
    get: (path: string) => h.t.http().get(path).set('authorization', `Bearer ${user.token}`),
    post: (path: string, body?: object) => {
      const req = h.t.http().post(path).set('authorization', `Bearer ${user.token}`);
      return body === undefined ? req : req.send(body);
    },
  });
  return {
    h,
    as,
    receiver: async (status: number) => {
      const r = await Receiver.start(testCa().server, { status });
      h.receivers.push(r);
      return r;
    },
    subscription: (url: string) => createSubscription(h.t, { tenant: h.partner.tenant, url }),
    secretOf: async (sub: Subscription) =>
      (await as(h.partner).get(`${PATH}/${sub.id}/secret`).expect(200)).body.key as string,
    rotate: async (sub: Subscription) =>
      (await as(h.partner).post(`${PATH}/${sub.id}/secret/rotate`).expect(200)).body.key as string,
    /** One licence event for the partner's tenant; its id as the API gives it. */
    publish: async (): Promise<number> => {
      const res = await as(h.admin)
        .post('/admin/licence-events', {
          eventType: WebhookEvent.LICENCE_CREATED_SUCCESS,
          tenant: h.partner.tenant,
          licence: licence({ name: HOLDER }),
        })
        .expect(202);
      return res.body.eventId;
    },
    /** The subscription's records (with their trigger) once there are `count`, oldest first. */
    records: async (sub: Subscription, count: number) => {
      await waitForDeliveries(h.t.dataSource, sub.id, count, 15_000);
      const rows: Array<{ id: string; eventId: string; status: string; trigger: string }> =
        await h.t.dataSource.query(
          `SELECT id, event_id AS "eventId", status, trigger
           FROM webhook_deliveries WHERE subscription_id = $1 ORDER BY id`,
          [sub.id],
        );
      expect(rows).toHaveLength(count); // nothing more than expected
      return rows;
    },
    resend: (sub: Subscription, deliveryId: string) =>
      as(h.partner).post(`${PATH}/${sub.id}/deliveries/${deliveryId}/resend`).expect(202),
  };
}

/** Verifies with `secret` and refuses a secret that is not the subscription's. */
function expectSignedWith(secret: string, receipt: Receipt): void {
  expect(verifyReceipt(secret, receipt)).toEqual(receipt.body);
  expect(() => verifyReceipt(someKey(), receipt)).toThrow(NO_MATCH);
}

/** Byte for byte the same body, the same webhook-id, a timestamp no older. */
function expectSameMessage(again: Receipt, first: Receipt, eventId: number): void {
  expect(again.bytes.equals(first.bytes)).toBe(true);
  expect(again.bytes.toString('hex')).toBe(first.bytes.toString('hex')); // the difference, if any
  expect(again.raw).toContain(HOLDER);
  expect(first.headers['webhook-id']).toBe(String(eventId));
  expect(again.headers['webhook-id']).toBe(String(eventId));
  expect(Number(again.headers['webhook-timestamp'])).toBeGreaterThanOrEqual(
    Number(first.headers['webhook-timestamp']),
  );
}

describe('Partner tools, signed: resend, recover and test deliveries verify with standardwebhooks', () => {
  const { h, as, receiver, subscription, secretOf, rotate, publish, records, resend } = harness();

  it('an EVENT delivery that FAILED, resent to a receiver now up: the same bytes and webhook-id, signed again', async () => {
    const down = await receiver(503);
    const up = await receiver(200);
    const sub = await subscription(down.url());
    const secret = await secretOf(sub);
    const eventId = await publish();
    const [failed] = await records(sub, 1);
    expect(failed).toMatchObject({ status: 'FAILED', trigger: 'EVENT', eventId: String(eventId) });
    const [first] = down.receipts;
    expectSignedWith(secret, first);

    // The partner points the subscription at the receiver that is up, and resends.
    await h.t.dataSource.getRepository(Subscription).update(sub.id, { url: up.url() });
    const res = await resend(sub, failed.id);
    expect(res.body).toEqual({ eventId, subscriptionId: sub.id });
    const [, again] = await records(sub, 2);
    expect(again).toMatchObject({ status: 'SUCCESS', trigger: 'RESEND', eventId: String(eventId) });
    const [copy] = await up.waitFor(1);

    expectSameMessage(copy, first, eventId);
    expect(signaturesOf(copy.headers)).toHaveLength(1);
    expectSignedWith(secret, copy);
    // Signed over this attempt's own timestamp and id: another id or a changed byte is refused.
    expect(() => verifyReceipt(secret, copy, { ...copy.headers, 'webhook-id': String(eventId + 1) })).toThrow(
      NO_MATCH,
    );
    expect(() =>
      verifyReceipt(secret, { ...copy, raw: copy.raw.replace(HOLDER, HOLDER.toUpperCase()) }),
    ).toThrow(NO_MATCH);
  });

  it('RECOVER deliveries and TEST deliveries verify; the test delivery’s webhook-id is the test event’s id', async () => {
    const hook = await receiver(500);
    const sub = await subscription(hook.url());
    const secret = await secretOf(sub);
    const events = [await publish(), await publish()];
    await records(sub, 2);
    const originals = await hook.waitFor(2);

    hook.behaviour = { status: 200 };
    const since = new Date(Date.now() - 3600_000).toISOString();
    await as(h.partner).post(`${PATH}/${sub.id}/recover`, { since }).expect(202, { events: 2 });
    const recovered = await records(sub, 4);
    expect(recovered.slice(2)).toEqual([
      expect.objectContaining({ trigger: 'RECOVER', status: 'SUCCESS' }),
      expect.objectContaining({ trigger: 'RECOVER', status: 'SUCCESS' }),
    ]);
    const copies = (await hook.waitFor(4)).slice(2);
    expect(copies.map((c) => c.headers['webhook-id']).sort()).toEqual(events.map(String).sort());
    for (const copy of copies) {
      const eventId = Number(copy.headers['webhook-id']);
      const first = originals.find((o) => o.headers['webhook-id'] === String(eventId))!;
      expectSameMessage(copy, first, eventId);
      expectSignedWith(secret, copy);
    }

    for (const eventType of [WebhookEvent.LICENCE_CREATED_SUCCESS, WebhookEvent.LICENCE_CREATED_FAILED]) {
      const count = hook.receipts.length + 1;
      const res = await as(h.partner).post(`${PATH}/${sub.id}/test`, { eventType }).expect(202);
      expect((await records(sub, count))[count - 1]).toMatchObject({
        trigger: 'TEST',
        status: 'SUCCESS',
        eventId: String(res.body.eventId),
      });
      const copy = (await hook.waitFor(count))[count - 1];
      expect(copy.headers['webhook-id']).toBe(String(res.body.eventId));
      expect(copy.body).toMatchObject({ eventType, tenant: h.partner.tenant });
      expectSignedWith(secret, copy);
    }
  });

  it('during a rotation’s overlap: resend, recover and test carry two signatures, each verifying with its own secret', async () => {
    const hook = await receiver(500);
    const sub = await subscription(hook.url());
    const oldKey = await secretOf(sub);
    const [resent, recovered] = [await publish(), await publish()];
    const failed = await records(sub, 2);
    // The two first attempts run concurrently: they may arrive in either order.
    const originals = await hook.waitFor(2);
    const originalOf = (eventId: number) =>
      originals.find((o) => o.headers['webhook-id'] === String(eventId))!;
    for (const original of originals) {
      expect(signaturesOf(original.headers)).toHaveLength(1);
      expectSignedWith(oldKey, original);
    }

    const newKey = await rotate(sub);
    expect(newKey).not.toBe(oldKey);
    expect(() => verifyReceipt(newKey, originals[0])).toThrow(NO_MATCH); // signed before the rotation
    hook.behaviour = { status: 200 };
    await resend(sub, failed.find((r) => r.eventId === String(resent))!.id);
    await records(sub, 3);
    // The resend's event has its successful attempt: only the other one is recovered.
    const since = new Date(Date.now() - 3600_000).toISOString();
    await as(h.partner).post(`${PATH}/${sub.id}/recover`, { since }).expect(202, { events: 1 });
    await records(sub, 4);
    const test = await as(h.partner).post(`${PATH}/${sub.id}/test`).expect(202);
    const rows = await records(sub, 5);
    expect(rows.slice(2).map((r) => [r.trigger, r.status, r.eventId])).toEqual([
      ['RESEND', 'SUCCESS', String(resent)],
      ['RECOVER', 'SUCCESS', String(recovered)],
      ['TEST', 'SUCCESS', String(test.body.eventId)],
    ]);

    const [resendCopy, recoverCopy, testCopy] = (await hook.waitFor(5)).slice(2);
    expectSameMessage(resendCopy, originalOf(resent), resent);
    expectSameMessage(recoverCopy, originalOf(recovered), recovered);
    expect(testCopy.headers['webhook-id']).toBe(String(test.body.eventId));
    for (const copy of [resendCopy, recoverCopy, testCopy]) {
      const [current, previous] = signaturesOf(copy.headers);
      expect(signaturesOf(copy.headers)).toHaveLength(2);
      // A receiver that knows either secret accepts the delivery...
      expect(verifyReceipt(newKey, copy)).toEqual(copy.body);
      expect(verifyReceipt(oldKey, copy)).toEqual(copy.body);
      // ...and each signature is its own secret's: the new one first, the old one second.
      expect(verifyReceipt(newKey, copy, withSignature(copy.headers, current))).toEqual(copy.body);
      expect(verifyReceipt(oldKey, copy, withSignature(copy.headers, previous))).toEqual(copy.body);
      expect(() => verifyReceipt(oldKey, copy, withSignature(copy.headers, current))).toThrow(NO_MATCH);
      expect(() => verifyReceipt(newKey, copy, withSignature(copy.headers, previous))).toThrow(NO_MATCH);
      expect(() => verifyReceipt(someKey(), copy)).toThrow(NO_MATCH);
    }
  });
});

describe('Partner tools, signed: after the overlap (WEBHOOK_SECRET_OVERLAP_MS 1)', () => {
  const { h, as, receiver, subscription, secretOf, rotate, publish, records, resend } = harness({
    WEBHOOK_SECRET_OVERLAP_MS: '1',
  });

  it('a resend and a test event are signed by the new secret alone: the old one is refused', async () => {
    const hook = await receiver(500);
    const sub = await subscription(hook.url());
    const oldKey = await secretOf(sub);
    const eventId = await publish();
    const [failed] = await records(sub, 1);
    const [original] = await hook.waitFor(1);
    expectSignedWith(oldKey, original);

    const newKey = await rotate(sub);
    hook.behaviour = { status: 200 };
    await resend(sub, failed.id);
    const test = await as(h.partner).post(`${PATH}/${sub.id}/test`).expect(202);
    const rows = await records(sub, 3);
    expect(
      rows
        .slice(1)
        .map((r) => [r.trigger, r.status])
        .sort(),
    ).toEqual([
      ['RESEND', 'SUCCESS'],
      ['TEST', 'SUCCESS'],
    ]);
    const copies = (await hook.waitFor(3)).slice(1);
    const resendCopy = copies.find((c) => c.headers['webhook-id'] === String(eventId))!;
    const testCopy = copies.find((c) => c.headers['webhook-id'] === String(test.body.eventId))!;
    expectSameMessage(resendCopy, original, eventId);
    for (const copy of [resendCopy, testCopy]) {
      expect(signaturesOf(copy.headers)).toHaveLength(1);
      expect(verifyReceipt(newKey, copy)).toEqual(copy.body);
      expect(() => verifyReceipt(oldKey, copy)).toThrow(NO_MATCH);
    }
  });
});
