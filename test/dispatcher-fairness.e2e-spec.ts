import type { IncomingMessage, ServerResponse } from 'node:http';
import { WebhookEvent } from '../src/common/reference/enums';
import { LicenceCreatedFailedEvent } from '../src/licence-events/licence-created-failed.event';
import { LicenceCreatedSuccessEvent } from '../src/licence-events/licence-created-success.event';
import { LicenceEventPublisher } from '../src/dispatcher/licence-event.publisher';
import {
  createSubscription,
  licence,
  pendingJobs,
  startDispatcherApp,
  waitForDeliveries,
} from './support/dispatcher';
import { Receipt, Receiver } from './support/receiver';
import { testCa } from './support/test-ca';
import type { TestApp } from './support/test-app';
import { uniq } from './support/test-app';

/**
 * Contract section 8, Fairness. Each test asserts the order of what the receivers saw, not times:
 * the healthy delivery arrives while the slow ones are still open (or pending).
 */
describe('Dispatcher: fairness between subscriptions of one host', () => {
  const TIMEOUT_MS = 2000;
  let t: TestApp;
  let host: Receiver | undefined;

  beforeAll(async () => {
    // 8 slots: 2 in flight per subscription, so three hanging paths can hold 6.
    t = await startDispatcherApp({ WEBHOOK_TIMEOUT_MS: String(TIMEOUT_MS), WEBHOOK_CONCURRENCY: '8' });
  });
  afterAll(async () => {
    await host?.close();
    await t?.close();
  });

  it('delivers to a healthy path while three other paths of its host hang, also once they timed out', async () => {
    const healthy: Receipt[] = [];
    let hangingOpen = 0;
    let hangingClosed = 0;
    // One host: /healthy answers at once, every other path never answers.
    host = await Receiver.start(testCa().server, (req: IncomingMessage, res: ServerResponse, receipt) => {
      if (receipt.path === '/healthy') {
        healthy.push({ ...receipt, body: { hangingOpen, hangingClosed } });
        res.writeHead(200).end('ok');
        return;
      }
      hangingOpen++;
      res.once('close', () => {
        hangingOpen--;
        hangingClosed++;
      });
    });
    const tenant = uniq('tenant');
    const hanging = [];
    for (let i = 1; i <= 3; i++) {
      hanging.push(
        await createSubscription(t, {
          tenant,
          url: host.url(`/hang-${i}`),
          events: [WebhookEvent.LICENCE_CREATED_FAILED],
        }),
      );
    }
    const ok = await createSubscription(t, {
      tenant,
      url: host.url('/healthy'),
      events: [WebhookEvent.LICENCE_CREATED_SUCCESS],
    });
    const publisher = t.app.get(LicenceEventPublisher);
    const publishHanging = () =>
      publisher.publish(new LicenceCreatedFailedEvent({ tenant, error: { message: 'no', type: 'X' } }));
    const publishHealthy = () =>
      publisher.publish(new LicenceCreatedSuccessEvent({ tenant, licence: licence() }));

    // Two hanging requests per path (each subscription's cap), six in all.
    await publishHanging();
    await publishHanging();
    await host.waitFor(6);
    await publishHealthy();
    await waitForDeliveries(t.dataSource, ok.id, 1);
    expect(healthy[0].body).toEqual({ hangingOpen: 6, hangingClosed: 0 });

    // They time out; each hanging path is then held to one request at a time, but not its host.
    for (const sub of hanging) await waitForDeliveries(t.dataSource, sub.id, 2, 4 * TIMEOUT_MS);
    await publishHanging();
    await publishHanging();
    for (let i = 0; i < 100 && hangingOpen < 3; i++) await new Promise((r) => setTimeout(r, 20));
    expect(hangingOpen).toBe(3);
    for (let i = 0; i < 3; i++) await publishHealthy();
    await waitForDeliveries(t.dataSource, ok.id, 4);
    expect(healthy.slice(1).map((r) => r.body)).toEqual(
      Array.from({ length: 3 }, () => ({ hangingOpen: 3, hangingClosed: 6 })),
    );
    await expect(pendingJobs(t.dataSource, hanging[0].id)).resolves.toBe(2);
  }, 30_000);
});

describe('Dispatcher: fairness between tenants', () => {
  const SLOW_MS = 3000;
  let t: TestApp;
  const receivers: Receiver[] = [];

  beforeAll(async () => {
    // 16 slots: one tenant may hold 15 of them; 4 per subscription.
    t = await startDispatcherApp({ WEBHOOK_TIMEOUT_MS: String(2 * SLOW_MS), WEBHOOK_CONCURRENCY: '16' });
  });
  afterAll(async () => {
    // The app first: closed receivers would turn the backlog into 2,000 quick failures to record.
    await t?.close();
    for (const r of receivers) await r.close();
  });

  it("delivers a second tenant's event while the first tenant's backlog on 8 slow endpoints is mostly pending", async () => {
    const busy = uniq('busy');
    const slow: Receiver[] = [];
    const slowSubs = [];
    // Eight endpoints on eight hosts, each answering after SLOW_MS: together they could take every slot.
    for (let i = 0; i < 8; i++) {
      const r = await Receiver.start(testCa().server, { status: 200, delayMs: SLOW_MS });
      receivers.push(r);
      slow.push(r);
      slowSubs.push(await createSubscription(t, { tenant: busy, url: r.url() }));
    }
    const quiet = uniq('quiet');
    const fast = await Receiver.start(testCa().server, { status: 200 });
    receivers.push(fast);
    const fastSub = await createSubscription(t, { tenant: quiet, url: fast.url() });
    const publisher = t.app.get(LicenceEventPublisher);

    // 250 events × 8 subscriptions: a backlog of 2,000 deliveries, in one transaction per 50 events.
    for (let batch = 0; batch < 5; batch++) {
      await t.dataSource.transaction(async (manager) => {
        for (let i = 0; i < 50; i++) {
          await publisher.publish(new LicenceCreatedSuccessEvent({ tenant: busy, licence: licence() }), {
            transaction: manager,
          });
        }
      });
    }
    const received = () => slow.reduce((n, r) => n + r.receipts.length, 0);
    for (let i = 0; i < 250 && received() < 15; i++) await new Promise((r) => setTimeout(r, 20));
    // Every slot but the reserve (15 of 16), all still waiting for their answer.
    expect(received()).toBeGreaterThanOrEqual(15);

    await publisher.publish(new LicenceCreatedSuccessEvent({ tenant: quiet, licence: licence() }));
    await fast.waitFor(1, SLOW_MS);
    const answered = await t.dataSource.query(
      `SELECT count(*)::int AS n FROM webhook_deliveries WHERE subscription_id = ANY ($1::int[])`,
      [slowSubs.map((s) => s.id)],
    );
    expect(answered[0].n).toBe(0); // before any of the first tenant's deliveries finished
    let pending = 0;
    for (const sub of slowSubs) pending += await pendingJobs(t.dataSource, sub.id);
    expect(pending).toBeGreaterThan(1900);
    await waitForDeliveries(t.dataSource, fastSub.id, 1);
  }, 60_000);
});
