import { randomBytes } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import { createReceiver, LicenceEvent, ReceiverOptions } from '../examples/receiver/receiver';
import { WebhookEvent } from '../src/common/reference/enums';
import { LicenceCreatedSuccessEvent } from '../src/licence-events/licence-created-success.event';
import { LicenceEventPublisher } from '../src/dispatcher/licence-event.publisher';
import { licence, sleep, startDispatcherApp } from './support/dispatcher';
import { testCa } from './support/test-ca';
import type { TestApp, TestUser } from './support/test-app';

const HEADER_NAME = 'X-Webhook-Secret';
const SECRET = 's3cret-shared-value';

interface RunningReceiver {
  url: string;
  /** The signing secrets it accepts (ReceiverOptions.signingSecrets): subscribe() adds each one. */
  secrets: string[];
  /** What onEvent processed, in order. */
  events: LicenceEvent[];
  /** What the receiver refused (onReject). */
  rejections: Array<{ status: number; reason: string }>;
  close(): Promise<void>;
}

/**
 * The real service (the app trusting the test CA, as NODE_EXTRA_CA_CERTS does in production)
 * delivering to the example receiver of examples/receiver, as a partner would run it.
 */
describe('The example receiver against the real service', () => {
  let t: TestApp;
  let admin: TestUser;
  const ca = testCa();
  const receivers: RunningReceiver[] = [];

  async function startReceiver(
    options: Omit<ReceiverOptions, 'onEvent' | 'onReject' | 'signingSecrets'>,
  ): Promise<RunningReceiver> {
    const events: LicenceEvent[] = [];
    const rejections: RunningReceiver['rejections'] = [];
    const secrets: string[] = [];
    const server = createReceiver(
      { key: ca.server.key, cert: ca.server.cert },
      {
        ...options,
        signingSecrets: secrets,
        onEvent: (event) => {
          events.push(event);
        },
        onReject: (status, reason) => rejections.push({ status, reason }),
      },
    );
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const receiver: RunningReceiver = {
      url: `https://127.0.0.1:${(server.address() as AddressInfo).port}/webhooks`,
      secrets,
      events,
      rejections,
      close: async () => {
        server.closeAllConnections();
        await new Promise<void>((resolve) => server.close(() => resolve()));
      },
    };
    receivers.push(receiver);
    return receiver;
  }

  const bearer = (user: TestUser) => ({ authorization: `Bearer ${user.token}` });

  /**
   * Subscribes through the API, as the partner does, and gives the receiver the subscription's
   * signing secret (unless `trustSecret` is false).
   */
  async function subscribe(
    user: TestUser,
    receiver: RunningReceiver,
    headerValue: string,
    trustSecret = true,
  ): Promise<number> {
    const res = await t
      .http()
      .post('/webhooks/subscriptions')
      .set(bearer(user))
      .send({
        name: 'Example receiver',
        url: receiver.url,
        events: [WebhookEvent.LICENCE_CREATED_SUCCESS, WebhookEvent.LICENCE_CREATED_FAILED],
        headerName: HEADER_NAME,
        headerValue,
      })
      .expect(200);
    if (trustSecret) receiver.secrets.push(await secretOf(user, res.body.id));
    return res.body.id;
  }

  async function secretOf(user: TestUser, id: number): Promise<string> {
    const res = await t.http().get(`/webhooks/subscriptions/${id}/secret`).set(bearer(user)).expect(200);
    return res.body.key;
  }

  /** The subscription's delivery history through the API, once it has `count` records. */
  async function history(user: TestUser, id: number, count: number): Promise<Array<Record<string, any>>> {
    const deadline = Date.now() + 15_000;
    for (;;) {
      const res = await t
        .http()
        .get(`/webhooks/subscriptions/${id}/deliveries`)
        .set(bearer(user))
        .expect(200);
      if (res.body.totalElements >= count) return res.body.content;
      if (Date.now() > deadline) throw new Error(`${res.body.totalElements} deliveries, expected ${count}`);
      await sleep(50);
    }
  }

  /** Waits until onEvent has run `count` times, then a little longer to catch any extra run. */
  async function processed(receiver: RunningReceiver, count: number): Promise<LicenceEvent[]> {
    const deadline = Date.now() + 10_000;
    while (receiver.events.length < count && Date.now() < deadline) await sleep(20);
    await sleep(300);
    return receiver.events;
  }

  beforeAll(async () => {
    t = await startDispatcherApp();
    admin = await t.createUser({ admin: true });
  });
  afterAll(async () => {
    for (const receiver of receivers) await receiver.close();
    await t?.close();
  });

  it('accepts a delivery with the right header: SUCCESS, and onEvent gets the event once', async () => {
    const partner = await t.createUser();
    const receiver = await startReceiver({
      headerName: HEADER_NAME,
      headerValue: SECRET,
      allowedTenants: [partner.tenant],
    });
    const id = await subscribe(partner, receiver, SECRET);
    const lic = licence();

    const published = await t
      .http()
      .post('/admin/licence-events')
      .set(bearer(admin))
      .send({ eventType: WebhookEvent.LICENCE_CREATED_SUCCESS, tenant: partner.tenant, licence: lic })
      .expect(202);
    expect(published.body.matchedSubscriptions).toBe(1);

    const [delivery] = await history(partner, id, 1);
    expect(delivery).toMatchObject({
      subscriptionId: id,
      eventType: 'LICENCE_CREATED_SUCCESS',
      status: 'SUCCESS',
      httpStatusCode: 200,
      errorMessage: null,
    });
    expect(await processed(receiver, 1)).toEqual([
      {
        eventType: 'LICENCE_CREATED_SUCCESS',
        timestamp: published.body.timestamp,
        tenant: partner.tenant,
        licence: lic,
        error: null,
      },
    ]);
    expect(receiver.rejections).toEqual([]);
  });

  it('acknowledges a duplicate (same event, same timestamp) with 200 but processes it once', async () => {
    const partner = await t.createUser();
    const receiver = await startReceiver({
      headerName: HEADER_NAME,
      headerValue: SECRET,
      allowedTenants: [partner.tenant],
    });
    const id = await subscribe(partner, receiver, SECRET);
    const publisher = t.app.get(LicenceEventPublisher);
    // What a redelivery looks like: the same event published twice, with the same timestamp.
    const event = new LicenceCreatedSuccessEvent({
      tenant: partner.tenant,
      licence: licence(),
      timestamp: new Date(),
    });
    await publisher.publish(event);
    await publisher.publish(new LicenceCreatedSuccessEvent({ ...event }));

    const deliveries = await history(partner, id, 2);
    expect(deliveries).toHaveLength(2);
    for (const delivery of deliveries) {
      expect(delivery).toMatchObject({ status: 'SUCCESS', httpStatusCode: 200, errorMessage: null });
    }
    const events = await processed(receiver, 1);
    expect(events).toHaveLength(1);
    expect(events[0]).toMatchObject({
      timestamp: event.timestamp.toISOString(),
      licence: { code: event.licence.code },
    });

    // A different event (another timestamp) is not a duplicate: it is processed.
    await publisher.publish(
      new LicenceCreatedSuccessEvent({ ...event, timestamp: new Date(Date.now() + 1) }),
    );
    await history(partner, id, 3);
    expect(await processed(receiver, 2)).toHaveLength(2);
  });

  it('refuses a delivery with the wrong header: FAILED 401 in the history, nothing processed', async () => {
    const partner = await t.createUser();
    const receiver = await startReceiver({
      headerName: HEADER_NAME,
      headerValue: SECRET,
      allowedTenants: [partner.tenant],
    });
    const id = await subscribe(partner, receiver, 'not-the-secret');
    await t.app
      .get(LicenceEventPublisher)
      .publish(new LicenceCreatedSuccessEvent({ tenant: partner.tenant, licence: licence() }));

    const [delivery] = await history(partner, id, 1);
    expect(delivery).toMatchObject({
      status: 'FAILED',
      httpStatusCode: 401,
      errorMessage: 'HTTP 401 Unauthorized',
    });
    expect(await processed(receiver, 0)).toEqual([]);
    expect(receiver.rejections).toEqual([{ status: 401, reason: 'missing or wrong authentication header' }]);
  });

  it("refuses another tenant's event: FAILED 403", async () => {
    const expected = await t.createUser();
    const other = await t.createUser();
    const receiver = await startReceiver({
      headerName: HEADER_NAME,
      headerValue: SECRET,
      allowedTenants: [expected.tenant],
    });
    // The other tenant's partner points its subscription, right header and all, at this receiver.
    const id = await subscribe(other, receiver, SECRET);
    await t.app
      .get(LicenceEventPublisher)
      .publish(new LicenceCreatedSuccessEvent({ tenant: other.tenant, licence: licence() }));

    const [delivery] = await history(other, id, 1);
    expect(delivery).toMatchObject({
      status: 'FAILED',
      httpStatusCode: 403,
      errorMessage: 'HTTP 403 Forbidden',
    });
    expect(await processed(receiver, 0)).toEqual([]);
    expect(receiver.rejections).toEqual([{ status: 403, reason: 'unexpected tenant' }]);
  });

  it('refuses a stale timestamp (a replay): FAILED 400', async () => {
    const partner = await t.createUser();
    const receiver = await startReceiver({
      headerName: HEADER_NAME,
      headerValue: SECRET,
      allowedTenants: [partner.tenant],
      replayWindowMs: 5 * 60_000,
    });
    const id = await subscribe(partner, receiver, SECRET);
    await t.app.get(LicenceEventPublisher).publish(
      new LicenceCreatedSuccessEvent({
        tenant: partner.tenant,
        licence: licence(),
        timestamp: new Date(Date.now() - 10 * 60_000),
      }),
    );

    const [delivery] = await history(partner, id, 1);
    expect(delivery).toMatchObject({
      status: 'FAILED',
      httpStatusCode: 400,
      errorMessage: 'HTTP 400 Bad Request',
    });
    expect(await processed(receiver, 0)).toEqual([]);
    expect(receiver.rejections).toEqual([{ status: 400, reason: 'timestamp outside the replay window' }]);
  });

  it('refuses a delivery signed with a secret it does not know: FAILED 401, nothing processed', async () => {
    const partner = await t.createUser();
    const receiver = await startReceiver({
      headerName: HEADER_NAME,
      headerValue: SECRET,
      allowedTenants: [partner.tenant],
    });
    receiver.secrets.push(`whsec_${randomBytes(24).toString('base64')}`);
    const id = await subscribe(partner, receiver, SECRET, false);
    await t.app
      .get(LicenceEventPublisher)
      .publish(new LicenceCreatedSuccessEvent({ tenant: partner.tenant, licence: licence() }));

    const [delivery] = await history(partner, id, 1);
    expect(delivery).toMatchObject({ status: 'FAILED', httpStatusCode: 401 });
    expect(await processed(receiver, 0)).toEqual([]);
    expect(receiver.rejections).toEqual([
      { status: 401, reason: 'bad signature: No matching signature found' },
    ]);
  });

  it('keeps accepting through a rotation, whether it knows only the old secret or already the new one', async () => {
    const partner = await t.createUser();
    const [knowsOld, knowsNew] = [
      await startReceiver({ allowedTenants: [partner.tenant] }),
      await startReceiver({ allowedTenants: [partner.tenant] }),
    ];
    const oldId = await subscribe(partner, knowsOld, SECRET);
    const newId = await subscribe(partner, knowsNew, SECRET, false);
    const rotated = await t
      .http()
      .post(`/webhooks/subscriptions/${newId}/secret/rotate`)
      .set(bearer(partner))
      .expect(200);
    knowsNew.secrets.push(rotated.body.key);
    await t.http().post(`/webhooks/subscriptions/${oldId}/secret/rotate`).set(bearer(partner)).expect(200);

    await t.app
      .get(LicenceEventPublisher)
      .publish(new LicenceCreatedSuccessEvent({ tenant: partner.tenant, licence: licence() }));
    for (const id of [oldId, newId]) {
      const [delivery] = await history(partner, id, 1);
      expect(delivery).toMatchObject({ status: 'SUCCESS', httpStatusCode: 200 });
    }
    expect(await processed(knowsOld, 1)).toHaveLength(1);
    expect(await processed(knowsNew, 1)).toHaveLength(1);
    expect([...knowsOld.rejections, ...knowsNew.rejections]).toEqual([]);
  });

  it('processes an event once when it arrives twice with the same webhook-id (two subscriptions to it)', async () => {
    const partner = await t.createUser();
    const receiver = await startReceiver({ allowedTenants: [partner.tenant] });
    const first = await subscribe(partner, receiver, SECRET);
    const second = await subscribe(partner, receiver, SECRET);
    await t.app
      .get(LicenceEventPublisher)
      .publish(new LicenceCreatedSuccessEvent({ tenant: partner.tenant, licence: licence() }));

    // Both copies acknowledged (each verified with its own subscription's secret), one processed.
    for (const id of [first, second]) {
      const [delivery] = await history(partner, id, 1);
      expect(delivery).toMatchObject({ status: 'SUCCESS', httpStatusCode: 200 });
    }
    expect(await processed(receiver, 1)).toHaveLength(1);
    expect(receiver.rejections).toEqual([]);
  });
});
