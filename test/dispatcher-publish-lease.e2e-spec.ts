import type { IncomingMessage, ServerResponse } from 'node:http';
import pg from 'pg';
import { ClaimResult, WebhookJobsRepository } from '../src/dispatcher/webhook-jobs.repository';
import type { KeyedEvent } from '../src/dispatcher/idempotent-enqueue.statement';
import { WebhookEventsRepository, WrittenLeasedEvent } from '../src/dispatcher/webhook-events.repository';
import {
  createSubscription,
  deliveriesOf,
  licence,
  sleep,
  startDispatcherApp,
  waitForDeliveries,
} from './support/dispatcher';
import { Receiver } from './support/receiver';
import { testCa } from './support/test-ca';
import type { TestApp, TestUser } from './support/test-app';
import { uniq } from './support/test-app';

/**
 * A publish leases to its instance the jobs that instance delivers at once, as it writes them
 * (WebhookWorker.leaseForPublish): no claim runs between the publish's commit and their start, and
 * no NOTIFY wakes the instances for jobs nobody else may take. Jobs beyond the instance's room, and
 * rate-limited subscriptions' jobs, are written unleased and claimed as before.
 */
describe('Dispatcher: a publish leases the jobs its instance delivers at once', () => {
  let t: TestApp;
  let admin: TestUser;
  let receiver: Receiver | undefined;
  let listener: pg.Client;
  let heard: number;

  beforeAll(async () => {
    // 4 slots: 8 jobs leased here at once, 7 of one tenant (AdmissionPolicy), one per subscription
    // in flight, 3 per host.
    t = await startDispatcherApp({ WEBHOOK_CONCURRENCY: '4' });
    admin = await t.createUser({ admin: true });
    listener = new pg.Client({ connectionString: t.databaseUrl });
    await listener.connect();
    listener.on('notification', (n) => {
      if (n.channel === 'webhook_jobs') heard++;
    });
    await listener.query('LISTEN webhook_jobs');
  });
  beforeEach(() => {
    heard = 0;
  });
  afterEach(async () => {
    jest.restoreAllMocks();
    await receiver?.close();
    receiver = undefined;
  });
  afterAll(async () => {
    await listener?.end();
    await t?.close();
  });

  const publish = (tenant: string, headers: Record<string, string> = {}, body = licence()) =>
    t
      .http()
      .post('/admin/licence-events')
      .set('authorization', `Bearer ${admin.token}`)
      .set(headers)
      .send({ eventType: 'LICENCE_CREATED_SUCCESS', tenant, licence: body, error: null });

  /** The claims' and the leasing publishes' outcomes, observed (the spies call through). */
  function observe() {
    const claims = jest.spyOn(t.app.get(WebhookJobsRepository), 'claimDue');
    const events = t.app.get(WebhookEventsRepository);
    const leasing = jest.spyOn(events, 'insertLeasing');
    const keyed = jest.spyOn(events, 'insertKeyed');
    const settled = async <T>(spy: { mock: { results: Array<{ value: unknown }> } }) =>
      Promise.all(spy.mock.results.map((r) => r.value as Promise<T>));
    return {
      claimed: async () => (await settled<ClaimResult>(claims)).reduce((n, r) => n + r.jobs.length, 0),
      /** The subscription of every job the claims took, in the order taken. */
      claimedFor: async () =>
        (await settled<ClaimResult>(claims)).flatMap((r) => r.jobs.map((job) => job.subscriptionId)),
      leased: async () => (await settled<WrittenLeasedEvent>(leasing)).map((w) => w.leased.length),
      leasedKeyed: async () => (await settled<KeyedEvent>(keyed)).map((k) => k.leased.length),
    };
  }

  it('leases the jobs of an idle instance as it writes them: no claim, no NOTIFY, one attempt each', async () => {
    const held: ServerResponse[] = [];
    receiver = await Receiver.start(testCa().server, (_req: IncomingMessage, res: ServerResponse) => {
      held.push(res);
    });
    const tenant = uniq('tenant');
    const subs = [];
    for (let i = 0; i < 3; i++)
      subs.push(await createSubscription(t, { tenant, url: receiver.url(`/h/${i}`) }));
    const seen = observe();

    const res = await publish(tenant).expect(202);
    expect(res.body.matchedSubscriptions).toBe(3);
    await receiver.waitFor(3);
    // In flight: every job leased to this instance when it was written, and counted as an attempt.
    const jobs: Array<{ leased: boolean; attempts: number }> = await t.dataSource.query(
      `SELECT leased_by IS NOT NULL AND lease_until > now() AS leased, attempts FROM webhook_jobs WHERE event_id = $1`,
      [res.body.eventId],
    );
    expect(jobs).toEqual(Array(3).fill({ leased: true, attempts: 1 }));
    for (const r of held) r.writeHead(200).end('ok');
    for (const sub of subs) {
      await waitForDeliveries(t.dataSource, sub.id, 1);
      expect((await deliveriesOf(t.dataSource, sub.id)).map((d) => d.status)).toEqual(['SUCCESS']);
    }
    expect(await seen.leased()).toEqual([3]);
    expect(await seen.claimed()).toBe(0);
    await sleep(200);
    expect(heard).toBe(0);
  });

  it('leaves the jobs beyond its room for a claim, and wakes the instances for them', async () => {
    receiver = await Receiver.start(testCa().server, { status: 200, delayMs: 20 });
    const tenant = uniq('tenant');
    const subs = [];
    for (let i = 0; i < 10; i++)
      subs.push(await createSubscription(t, { tenant, url: receiver.url(`/h/${i}`) }));
    const seen = observe();

    await publish(tenant).expect(202);
    for (const sub of subs) await waitForDeliveries(t.dataSource, sub.id, 1);
    // A tenant holds at most 7 jobs here; the other 3 were written unleased and claimed.
    expect(await seen.leased()).toEqual([7]);
    expect(await seen.claimed()).toBeGreaterThanOrEqual(3);
    expect(heard).toBe(1);
    expect(receiver.receipts).toHaveLength(10);
  });

  it("leaves a rate-limited subscription's job for a claim (it takes the slot) and leases the others", async () => {
    receiver = await Receiver.start(testCa().server, { status: 200 });
    const tenant = uniq('tenant');
    const limited = await createSubscription(t, { tenant, url: receiver.url('/limited') });
    await t.dataSource.query('UPDATE subscriptions SET max_deliveries_per_second = 5 WHERE id = $1', [
      limited.id,
    ]);
    const unlimited = await createSubscription(t, { tenant, url: receiver.url('/unlimited') });
    const seen = observe();

    await publish(tenant).expect(202);
    await waitForDeliveries(t.dataSource, limited.id, 1);
    await waitForDeliveries(t.dataSource, unlimited.id, 1);
    expect(await seen.leased()).toEqual([1]);
    // The limited job went through a claim, the unlimited one never. On a loaded machine a paced job
    // that misses its slot is handed back unsent and claimed again (PacedJobs): more than one claim
    // of it then, but still one delivery.
    const claimedFor = await seen.claimedFor();
    expect(claimedFor.length).toBeGreaterThanOrEqual(1);
    expect(new Set(claimedFor)).toEqual(new Set([limited.id]));
    expect(await deliveriesOf(t.dataSource, limited.id)).toHaveLength(1);
    expect(heard).toBe(1);
    expect(
      await t.dataSource.query(
        'SELECT count(*)::int AS n FROM subscription_delivery_slots WHERE subscription_id = $1',
        [limited.id],
      ),
    ).toEqual([{ n: 1 }]);
  });

  it('writes the jobs of a publish that another leasing publish overlaps unleased, and delivers both', async () => {
    receiver = await Receiver.start(testCa().server, { status: 200, delayMs: 20 });
    const [a, b] = [uniq('tenant'), uniq('tenant')];
    const subA = await createSubscription(t, { tenant: a, url: receiver.url('/a') });
    const subB = await createSubscription(t, { tenant: b, url: receiver.url('/b') });
    const seen = observe();

    await Promise.all([publish(a).expect(202), publish(b).expect(202)]);
    await waitForDeliveries(t.dataSource, subA.id, 1);
    await waitForDeliveries(t.dataSource, subB.id, 1);
    // One lease at a time: the second publish, if it overlapped the first, wrote its job unleased.
    const leased = await seen.leased();
    const claimed = await seen.claimed();
    expect(leased.reduce((n, k) => n + k, 0) + claimed).toBeGreaterThanOrEqual(2);
    expect(heard).toBe(leased.length === 2 ? 0 : 1);
  });

  it('leases the jobs of a keyed publish the same way; its replay leases and sends nothing', async () => {
    receiver = await Receiver.start(testCa().server, { status: 200 });
    const tenant = uniq('tenant');
    const subs = [];
    for (let i = 0; i < 2; i++)
      subs.push(await createSubscription(t, { tenant, url: receiver.url(`/k/${i}`) }));
    const seen = observe();
    const key = { 'idempotency-key': uniq('key') };
    const body = licence();

    const first = await publish(tenant, key, body).expect(202);
    for (const sub of subs) await waitForDeliveries(t.dataSource, sub.id, 1);
    const replay = await publish(tenant, key, body).expect(202);
    expect(replay.headers['idempotent-replayed']).toBe('true');
    expect(replay.body.eventId).toBe(first.body.eventId);
    await sleep(200);

    expect(await seen.leasedKeyed()).toEqual([2, 0]);
    expect(await seen.claimed()).toBe(0);
    expect(heard).toBe(0);
    expect(receiver.receipts).toHaveLength(2);
  });
});
