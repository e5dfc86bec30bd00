import { ConfigService } from '@nestjs/config';
import { WebhookEvent } from '../src/common/reference/enums';
import { AdmissionPolicy } from '../src/dispatcher/admission-policy';
import { LicenceCreatedSuccessEvent } from '../src/licence-events/licence-created-success.event';
import { LicenceEventPublisher } from '../src/dispatcher/licence-event.publisher';
import { workerSettings } from '../src/dispatcher/worker-settings';
import {
  createSubscription,
  licence,
  pendingJobs,
  sleep,
  startDispatcherApp,
  waitForDeliveries,
} from './support/dispatcher';
import { Receiver } from './support/receiver';
import { testCa } from './support/test-ca';
import type { TestApp } from './support/test-app';
import { uniq } from './support/test-app';

const TIMEOUT_MS = 700;

describe('Dispatcher: per-receiver in-flight caps', () => {
  let t: TestApp;
  const receivers: Receiver[] = [];

  beforeAll(async () => {
    // 8 slots: up to 2 in flight per receiver.
    t = await startDispatcherApp({ WEBHOOK_TIMEOUT_MS: String(TIMEOUT_MS), WEBHOOK_CONCURRENCY: '8' });
  });
  afterAll(async () => {
    for (const r of receivers) await r.close();
    await t?.close();
  });

  const publish = (tenant: string) =>
    t.app
      .get(LicenceEventPublisher)
      .emit(
        WebhookEvent.LICENCE_CREATED_SUCCESS,
        new LicenceCreatedSuccessEvent({ tenant, licence: licence() }),
      );

  it('sends a healthy receiver up to a quarter of the slots, and an unresponsive one a single request', async () => {
    // The cap as the worker derives it from the configuration.
    const { concurrency, unresponsiveForMs } = workerSettings(t.app.get(ConfigService));
    expect(new AdmissionPolicy(concurrency, unresponsiveForMs, 0).subscriptionLimit).toBe(2);
    const healthy = await Receiver.start(testCa().server, { status: 200, delayMs: 150 });
    const dead = await Receiver.start(testCa().server, { hang: true });
    receivers.push(healthy, dead);
    const tenant = uniq('tenant');
    const healthySub = await createSubscription(t, { tenant, url: healthy.url() });
    const deadSub = await createSubscription(t, { tenant, url: dead.url() });

    for (let i = 0; i < 6; i++) await publish(tenant);
    await waitForDeliveries(t.dataSource, healthySub.id, 6);
    expect(healthy.maxOpen).toBe(2);

    // The first two attempts at the dead receiver ran side by side; after they timed out, one at a time.
    await waitForDeliveries(t.dataSource, deadSub.id, 2, 3 * TIMEOUT_MS);
    expect(dead.receipts.length).toBeGreaterThanOrEqual(2);
    const firstWave = dead.receipts.slice(0, 2).map((r) => r.receivedAt);
    expect(Math.abs(firstWave[1] - firstWave[0])).toBeLessThan(TIMEOUT_MS / 2);
    await sleep(50);
    dead.maxOpen = dead.open;
    await waitForDeliveries(t.dataSource, deadSub.id, 6, 8 * TIMEOUT_MS);
    expect(dead.maxOpen).toBe(1);
    const records = await waitForDeliveries(t.dataSource, deadSub.id, 6);
    expect(records.every((r) => r.errorMessage === `timed out after ${TIMEOUT_MS} ms`)).toBe(true);
  }, 30_000);
});

describe('Dispatcher: jobs claimed ahead of free slots', () => {
  const TIMEOUT = 4000;
  let t: TestApp;
  let dead: Receiver | undefined;

  beforeAll(async () => {
    // 8 slots, up to 2 in flight per receiver and as many again claimed ahead; sweep every 2 s.
    t = await startDispatcherApp({ WEBHOOK_TIMEOUT_MS: String(TIMEOUT), WEBHOOK_CONCURRENCY: '8' });
  });
  afterAll(async () => {
    await dead?.close();
    await t?.close();
  });

  const leases = (subscriptionId: number) =>
    t.dataSource.query<{ leased: boolean; attempts: number }[]>(
      `SELECT leased_by IS NOT NULL AS leased, attempts FROM webhook_jobs WHERE subscription_id = $1 ORDER BY id`,
      [subscriptionId],
    );

  it('hands back, unsent and not counted as attempts, jobs that waited behind a receiver that stopped answering', async () => {
    dead = await Receiver.start(testCa().server, { hang: true });
    const tenant = uniq('tenant');
    const sub = await createSubscription(t, { tenant, url: dead.url() });
    for (let i = 0; i < 6; i++) {
      await t.app
        .get(LicenceEventPublisher)
        .emit(
          WebhookEvent.LICENCE_CREATED_SUCCESS,
          new LicenceCreatedSuccessEvent({ tenant, licence: licence() }),
        );
    }
    await dead.waitFor(2);
    for (let i = 0; i < 50 && (await leases(sub.id)).filter((l) => l.leased).length < 4; i++) await sleep(20);
    // Two in flight (the receiver's cap) and two more claimed ahead, waiting in this instance.
    await expect(leases(sub.id)).resolves.toEqual([
      ...Array.from({ length: 4 }, () => ({ leased: true, attempts: 1 })),
      { leased: false, attempts: 0 },
      { leased: false, attempts: 0 },
    ]);

    // Within a sweep of waiting too long, the two queued jobs are released without being sent; the
    // receiver is no longer claimed ahead, so they stay free for any instance.
    await sleep(TIMEOUT / 2 + 1000);
    expect(dead.receipts).toHaveLength(2);
    await expect(leases(sub.id)).resolves.toEqual([
      { leased: true, attempts: 1 },
      { leased: true, attempts: 1 },
      ...Array.from({ length: 4 }, () => ({ leased: false, attempts: 0 })),
    ]);
    await expect(pendingJobs(t.dataSource, sub.id)).resolves.toBe(6);
  }, 20_000);
});
