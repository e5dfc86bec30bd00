import type { IncomingMessage, ServerResponse } from 'node:http';
import { LicenceCreatedSuccessEvent } from '../src/licence-events/licence-created-success.event';
import { LicenceEventPublisher } from '../src/dispatcher/licence-event.publisher';
import { WebhookEventsRepository, WrittenLeasedEvent } from '../src/dispatcher/webhook-events.repository';
import { ClaimResult, WebhookJobsRepository } from '../src/dispatcher/webhook-jobs.repository';
import { createSubscription, licence, startDispatcherApp, waitForDeliveries } from './support/dispatcher';
import { Receiver } from './support/receiver';
import { testCa } from './support/test-ca';
import type { TestApp } from './support/test-app';
import { uniq } from './support/test-app';

/**
 * When the worker claims (contract section 6): a claim that took every due job of the owners with
 * room is not followed by more claims as its deliveries finish, only by news (a publish) or the
 * sweep. The claims are the real repository's, observed (jest.spyOn calls through).
 */
describe('Dispatcher: no claims in vain at the tail of a burst', () => {
  const SUBSCRIPTIONS = 24;
  /** The sweep's period with a 10 s time-out (worker-settings.ts: half the time-out, at most 5 s). */
  const SWEEP_MS = 5_000;
  let t: TestApp;
  let receiver: Receiver | undefined;

  beforeAll(async () => {
    // 8 slots (2 per subscription, 14 held per tenant); a 10 s time-out puts the sweep 5 s apart.
    t = await startDispatcherApp({ WEBHOOK_TIMEOUT_MS: '10000', WEBHOOK_CONCURRENCY: '8' });
  });
  afterAll(async () => {
    await receiver?.close();
    await t?.close();
  });

  it('claims nothing more once the last due jobs are taken, however many deliveries then finish', async () => {
    // Each path answers after its own delay, so the deliveries in flight finish one by one.
    receiver = await Receiver.start(testCa().server, (req: IncomingMessage, res: ServerResponse) => {
      const n = Number(req.url?.split('/').pop());
      setTimeout(() => res.writeHead(200).end('ok'), 10 + 6 * (n % 12));
    });
    const tenant = uniq('tenant');
    const subs = [];
    for (let i = 0; i < SUBSCRIPTIONS; i++) {
      subs.push(await createSubscription(t, { tenant, url: receiver.url(`/hook/${i}`) }));
    }
    const jobs = t.app.get(WebhookJobsRepository);
    const claims = jest.spyOn(jobs, 'claimDue');
    // The publish leases as many jobs as a claim would take at once (WebhookWorker.leaseForPublish).
    const leasing = jest.spyOn(t.app.get(WebhookEventsRepository), 'insertLeasing');
    const started = Date.now();
    try {
      await t.app
        .get(LicenceEventPublisher)
        .publish(new LicenceCreatedSuccessEvent({ tenant, licence: licence() }));
      for (const sub of subs) await waitForDeliveries(t.dataSource, sub.id, 1, 15_000);
      const results = await Promise.all(claims.mock.results.map((r) => r.value as Promise<ClaimResult>));
      const [published] = await Promise.all(
        leasing.mock.results.map((r) => r.value as Promise<WrittenLeasedEvent>),
      );
      expect(published.leased).toHaveLength(14); // the tenant's room here: 2 × 8 slots less 2
      // A job claimed ahead that waited past its limit for a slot (a loaded machine) is handed back
      // unsent and taken again: more than one take per delivery, never fewer.
      const taken = results.reduce((sum, r) => sum + r.jobs.length, published.leased.length);
      expect(taken).toBeGreaterThanOrEqual(SUBSCRIPTIONS);
      // In vain at most: the one claim the publish asks for its unleased jobs while the tenant is
      // at its cap, another if its own NOTIFY comes during that claim, the one after a claim that
      // took exactly what it wanted, the last due jobs, and one per sweep that fell within the burst
      // (one on a quick machine; more where it runs slowly). Claiming on each finished delivery made
      // one in vain for nearly every delivery of the last round of slots (14 of 20 claims); so did
      // a delivery that finished while the last claim ran, and the publish asked for two claims.
      const sweeps = Math.ceil((Date.now() - started) / SWEEP_MS);
      const inVain = results.filter((r) => r.jobs.length === 0).length;
      expect(inVain).toBeLessThanOrEqual(3 + sweeps);
      expect(receiver.receipts).toHaveLength(SUBSCRIPTIONS);
    } finally {
      claims.mockRestore();
      leasing.mockRestore();
    }
  });

  it('beside a subscription at its cap, claims once per event of another tenant, not again as it is delivered', async () => {
    // The held subscription's receiver keeps its requests open: its 2 slots (a quarter of 8) stay taken.
    const open: ServerResponse[] = [];
    const holding = await Receiver.start(testCa().server, (req: IncomingMessage, res: ServerResponse) => {
      if (req.url?.startsWith('/held')) open.push(res);
      else res.writeHead(200).end('ok');
    });
    const claims = jest.spyOn(t.app.get(WebhookJobsRepository), 'claimDue');
    try {
      const held = await createSubscription(t, { tenant: uniq('tenant'), url: holding.url('/held') });
      const other = await createSubscription(t, { tenant: uniq('tenant'), url: holding.url('/other') });
      const publisher = t.app.get(LicenceEventPublisher);
      for (let i = 0; i < 6; i++)
        await publisher.publish(new LicenceCreatedSuccessEvent({ tenant: held.tenant, licence: licence() }));
      // Two in flight; those claimed ahead wait past their limit (500 ms) and are handed back, and
      // the subscription is not claimed ahead again: it stays at its cap of 2.
      for (let waited = 0; open.length < 2 && waited < 5_000; waited += 20) await sleep(20);
      expect(open).toHaveLength(2);
      await sleep(1_000);

      claims.mockClear();
      const started = Date.now();
      const EVENTS = 10;
      for (let i = 1; i <= EVENTS; i++) {
        await publisher.publish(new LicenceCreatedSuccessEvent({ tenant: other.tenant, licence: licence() }));
        await waitForDeliveries(t.dataSource, other.id, i, 15_000);
      }
      // Per event, the claim its publish asks for (the held subscription's jobs wait for a claim, so
      // the publish leases nothing) and usually one more for its NOTIFY, plus one per sweep within
      // the run. A finished delivery of the other subscription gives the held one no room: claiming
      // again on each found nothing, every time (3 claims per event).
      const sweeps = Math.ceil((Date.now() - started) / SWEEP_MS);
      expect(claims.mock.calls.length).toBeLessThanOrEqual(2.5 * EVENTS + sweeps);
      expect(open).toHaveLength(2);
    } finally {
      claims.mockRestore();
      for (const res of open) res.writeHead(200).end('ok');
      await holding.close();
    }
  });
});

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
