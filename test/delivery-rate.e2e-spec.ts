import { WebhookEvent } from '../src/common/reference/enums';
import {
  deliveriesOf,
  licence,
  pendingJobs,
  startDispatcherApp,
  waitForDeliveries,
} from './support/dispatcher';
import { Receiver } from './support/receiver';
import { ReceiverProcess } from './support/receiver-process';
import { startSecondInstance } from './support/second-instance';
import type { ServiceProcess } from './support/service-process';
import { testCa } from './support/test-ca';
import { TestApp, TestUser, uniq } from './support/test-app';

const PATH = '/webhooks/subscriptions';
const LIMIT = 5;
const EVENTS = 40;

/** The most of `times` (ms) within any window [t, t + 1000). */
function mostInOneSecond(times: number[]): number {
  const sorted = [...times].sort((a, b) => a - b);
  let most = 0;
  for (let i = 0, j = 0; i < sorted.length; i++) {
    while (sorted[i] - sorted[j] >= 1000) j++;
    most = Math.max(most, i - j + 1);
  }
  return most;
}

/**
 * Contract section 11, Delivery rate per subscription: the field on create, PUT and every body;
 * and the limit held across two instances sharing one database (the second a child process), while
 * an unlimited subscription of the same tenant is served at full speed.
 */
describe('Delivery rate per subscription (contract section 11)', () => {
  let t: TestApp;
  let admin: TestUser;
  let other: ServiceProcess | undefined;
  let stopOther: (() => Promise<void>) | undefined;
  const receivers: Array<Receiver | ReceiverProcess> = [];

  beforeAll(async () => {
    t = await startDispatcherApp({ WEBHOOK_CONCURRENCY: '16' });
    admin = await t.createUser({ admin: true });
    ({ instance: other, stop: stopOther } = await startSecondInstance(t, 2000, {
      NODE_EXTRA_CA_CERTS: testCa().certFile,
      WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true',
      WEBHOOK_CONCURRENCY: '16',
      WEBHOOK_TIMEOUT_MS: '1500',
    }));
  }, 180_000);
  afterAll(async () => {
    await stopOther?.();
    for (const r of receivers) await r.close();
    await t?.close();
  });

  const as = (user: TestUser) => ({ authorization: `Bearer ${user.token}` });
  const create = (body: Record<string, unknown>) =>
    t
      .http()
      .post(PATH)
      .set(as(admin))
      .send({ name: uniq('rate'), events: [WebhookEvent.LICENCE_CREATED_SUCCESS], ...body });

  it('is null by default, shown in every body, and refused out of range or of another type', async () => {
    const tenant = uniq('tenant');
    const plain = await create({ tenant, url: 'https://rate.example.com/a' }).expect(200);
    expect(plain.body.maxDeliveriesPerSecond).toBeNull();
    for (const bad of [0, 1001, 1.5, -1, '5', true, [5], { n: 5 }]) {
      const res = await create({ tenant, url: 'https://rate.example.com/b', maxDeliveriesPerSecond: bad });
      expect(res.status).toBe(400);
      expect(res.body).toMatchObject({ status: 400, error: 'Bad Request', path: PATH });
      expect(res.body.errors).toEqual([
        {
          field: 'maxDeliveriesPerSecond',
          message: expect.stringMatching(/integer from 1 to 1000, or null/),
        },
      ]);
      const put = await t.http().put(`${PATH}/${plain.body.id}`).set(as(admin)).send({
        name: 'x',
        url: 'https://rate.example.com/a',
        events: plain.body.events,
        maxDeliveriesPerSecond: bad,
      });
      expect(put.status).toBe(400);
    }
    const list = await t.http().get(PATH).query({ tenant }).set(as(admin)).expect(200);
    expect(list.body.totalElements).toBe(1); // nothing bad was stored
    for (const edge of [1, 1000]) {
      const res = await create({
        tenant,
        url: 'https://rate.example.com/c',
        maxDeliveriesPerSecond: edge,
      }).expect(200);
      expect(res.body.maxDeliveriesPerSecond).toBe(edge);
    }
  });

  it('PUT sets, keeps when left out, and null removes the limit; GET and the list show it', async () => {
    const tenant = uniq('tenant');
    const { body } = await create({
      tenant,
      url: 'https://rate.example.com/a',
      maxDeliveriesPerSecond: 7,
    }).expect(200);
    const url = `${PATH}/${body.id}`;
    const put = (extra: Record<string, unknown>) =>
      t
        .http()
        .put(url)
        .set(as(admin))
        .send({ name: body.name, url: body.url, events: body.events, ...extra })
        .expect(200);
    expect((await t.http().get(url).set(as(admin)).expect(200)).body.maxDeliveriesPerSecond).toBe(7);
    expect((await put({ maxDeliveriesPerSecond: 20 })).body.maxDeliveriesPerSecond).toBe(20);
    expect((await put({})).body.maxDeliveriesPerSecond).toBe(20);
    const list = await t.http().get(PATH).query({ tenant }).set(as(admin)).expect(200);
    expect(list.body.content[0].maxDeliveriesPerSecond).toBe(20);
    expect((await put({ maxDeliveriesPerSecond: null })).body.maxDeliveriesPerSecond).toBeNull();
    expect((await t.http().get(url).set(as(admin)).expect(200)).body.maxDeliveriesPerSecond).toBeNull();
  });

  it(`holds ${LIMIT}/s across two instances while an unlimited subscription of the tenant gets its events at full speed`, async () => {
    const tenant = uniq('tenant');
    // The limited one in a process of its own: stamps taken in this busy process (which runs the
    // first instance too) can be delayed and bunched by its event loop.
    const limitedReceiver = await ReceiverProcess.start(testCa().server);
    const freeReceiver = await Receiver.start(testCa().server, { status: 200 });
    receivers.push(limitedReceiver, freeReceiver);
    const limited = (
      await create({ tenant, url: limitedReceiver.url('/limited'), maxDeliveriesPerSecond: LIMIT }).expect(
        200,
      )
    ).body;
    const free = (await create({ tenant, url: freeReceiver.url('/free') }).expect(200)).body;

    const publish = (base: string, eventType = WebhookEvent.LICENCE_CREATED_SUCCESS) =>
      fetch(`${base}/admin/licence-events`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...as(admin) },
        body: JSON.stringify(
          eventType === WebhookEvent.LICENCE_CREATED_SUCCESS
            ? { eventType, tenant, licence: licence() }
            : { eventType, tenant, error: { message: 'no', type: 'X' } },
        ),
      }).then((res) => expect(res.status).toBe(202));
    // Both processes' delivery threads warmed up first (a cold thread's first request can reach the
    // receiver several hundred ms after it left: lazy module loading and JIT on this shared machine).
    const warmReceiver = await Receiver.start(testCa().server, { status: 200 });
    receivers.push(warmReceiver);
    await create({
      tenant,
      url: warmReceiver.url('/warm'),
      events: [WebhookEvent.LICENCE_CREATED_FAILED],
    }).expect(200);
    await Promise.all(
      [t.url, other!.url, t.url, other!.url].map((base) =>
        publish(base, WebhookEvent.LICENCE_CREATED_FAILED),
      ),
    );
    await warmReceiver.waitFor(4);

    // Half the events through each instance, published together.
    const publishedAt = Date.now();
    await Promise.all(Array.from({ length: EVENTS }, (_, i) => publish(i % 2 === 0 ? t.url : other!.url)));

    await freeReceiver.waitFor(EVENTS, 20_000);
    const freeDone = Date.now();
    const limitedSoFar = (await limitedReceiver.arrivals()).length;
    const times = await limitedReceiver.waitFor(EVENTS, 30_000);

    // At most LIMIT arrivals in any one-second window (the message lists them all if not).
    const t0 = Math.min(...times);
    const most = mostInOneSecond(times);
    if (most > LIMIT)
      throw new Error(
        `${most} arrivals in one second; ms from the first: ${times.map((at) => (at - t0).toFixed(1))}`,
      );
    expect(most).toBeGreaterThanOrEqual(LIMIT - 1); // and the rate is used (slots 1.25 s / 5 apart)
    // 40 at 5/s take about 8 s; the unlimited ones were all there before half of those.
    expect(limitedSoFar).toBeLessThan(EVENTS / 2);
    expect(freeDone - publishedAt).toBeLessThan(4000);
    const spread = Math.max(...times) - Math.min(...times);
    expect(spread).toBeGreaterThanOrEqual(((EVENTS - LIMIT) / LIMIT) * 1000);

    // Nothing waiting was FAILED nor counted as an attempt: one SUCCESS record per event, no job left.
    await waitForDeliveries(t.dataSource, limited.id, EVENTS);
    await waitForDeliveries(t.dataSource, free.id, EVENTS);
    const records = await deliveriesOf(t.dataSource, limited.id);
    expect(records).toHaveLength(EVENTS);
    expect(records.every((r) => r.status === 'SUCCESS')).toBe(true);
    // The recorded starts (sentAt, as each instance's delivery thread began the request) too.
    expect(mostInOneSecond(records.map((r) => new Date(r.sentAt).getTime()))).toBeLessThanOrEqual(LIMIT);
    expect(await deliveriesOf(t.dataSource, free.id)).toHaveLength(EVENTS);
    expect(await pendingJobs(t.dataSource)).toBe(0);
  }, 60_000);
});
