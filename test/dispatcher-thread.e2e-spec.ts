import type { Worker } from 'node:worker_threads';
import { WebhookEvent } from '../src/common/reference/enums';
import { LicenceCreatedSuccessEvent } from '../src/licence-events/licence-created-success.event';
import { LicenceEventPublisher } from '../src/dispatcher/licence-event.publisher';
import { WebhookSender } from '../src/dispatcher/webhook-sender.service';
import { createSubscription, licence, startDispatcherApp, waitForDeliveries } from './support/dispatcher';
import { LogCapture } from './support/log-capture';
import { Receiver } from './support/receiver';
import { testCa } from './support/test-ca';
import { TestApp, uniq } from './support/test-app';

interface ThreadHandle {
  thread: Worker | undefined;
  send(...args: unknown[]): Promise<unknown>;
}
/** The delivery threads of a running app (private: only this spec reaches into them). */
const handlesOf = (t: TestApp) =>
  (t.app.get(WebhookSender) as unknown as { threads: ThreadHandle[] }).threads;
const threadOf = (t: TestApp) => handlesOf(t)[0].thread;

describe('Dispatcher: the delivery thread', () => {
  const receivers: Receiver[] = [];
  afterAll(async () => {
    for (const r of receivers) await r.close();
  });

  const publish = (t: TestApp, tenant: string) =>
    t.app
      .get(LicenceEventPublisher)
      .emit(
        WebhookEvent.LICENCE_CREATED_SUCCESS,
        new LicenceCreatedSuccessEvent({ tenant, licence: licence() }),
      );

  it('sends from its own thread, and after that thread dies a new one takes over; the cut-off delivery is attempted again after its lease and recorded once', async () => {
    const logs = new LogCapture();
    // Lease: 1500 ms time-out + 2000 ms margin; sweep every 750 ms.
    const t = await startDispatcherApp(
      { WEBHOOK_TIMEOUT_MS: '1500', LOG_LEVEL: 'info' },
      { logDestination: logs },
    );
    try {
      const hook = await Receiver.start(testCa().server, { hang: true });
      receivers.push(hook);
      const tenant = uniq('tenant');
      const sub = await createSubscription(t, { tenant, url: hook.url() });
      const first = threadOf(t);
      expect(first?.threadId).toBeGreaterThan(0);

      await publish(t, tenant);
      await hook.waitFor(1);
      await first!.terminate(); // the thread dies with the request unanswered
      hook.behaviour = { status: 200 };

      const [record] = await waitForDeliveries(t.dataSource, sub.id, 1, 15_000);
      expect(record).toMatchObject({ status: 'SUCCESS', httpStatusCode: 200 });
      const receipts = await hook.waitFor(2);
      expect(receipts[1].raw).toBe(receipts[0].raw); // the same event: the receivers' duplicate key
      expect(threadOf(t)).toBeDefined();
      expect(threadOf(t)).not.toBe(first);
      expect(logs.text).toContain('the delivery thread stopped');

      // The new thread delivers new events at once.
      await publish(t, tenant);
      const records = await waitForDeliveries(t.dataSource, sub.id, 2, 3000);
      expect(records.map((r) => r.status)).toEqual(['SUCCESS', 'SUCCESS']);
      expect(hook.receipts).toHaveLength(3);
    } finally {
      await t.close();
    }
    expect(threadOf(t)).toBeUndefined(); // closed with the app
  });

  it('with WEBHOOK_DELIVERY_THREAD_SEMI_SPACE_MB=4, the thread starts with that young generation and delivers', async () => {
    const t = await startDispatcherApp({ WEBHOOK_DELIVERY_THREAD_SEMI_SPACE_MB: '4' });
    try {
      // Two semi-spaces and a large-object space of 4 MB each (node's default here: 48).
      expect(threadOf(t)!.resourceLimits).toMatchObject({
        maxYoungGenerationSizeMb: 12,
        maxOldGenerationSizeMb: 64,
      });
      const hook = await Receiver.start(testCa().server, { status: 200 });
      receivers.push(hook);
      const tenant = uniq('tenant');
      const sub = await createSubscription(t, { tenant, url: hook.url() });
      await publish(t, tenant);
      const [record] = await waitForDeliveries(t.dataSource, sub.id, 1, 10_000);
      expect(record).toMatchObject({ status: 'SUCCESS', httpStatusCode: 200 });
    } finally {
      await t.close();
    }
  });

  it('with WEBHOOK_DELIVERY_THREADS=2, a burst goes out through both threads, each delivery recorded once', async () => {
    const t = await startDispatcherApp({ WEBHOOK_DELIVERY_THREADS: '2' });
    try {
      const hook = await Receiver.start(testCa().server, { status: 200 });
      receivers.push(hook);
      const tenant = uniq('tenant');
      const subs = [];
      for (let i = 0; i < 10; i++)
        subs.push(await createSubscription(t, { tenant, url: hook.url(`/s${i}`) }));
      const handles = handlesOf(t);
      expect(handles).toHaveLength(2);
      expect(handles[0].thread!.threadId).not.toBe(handles[1].thread!.threadId);
      const sends = handles.map((handle) => {
        const counted = { n: 0 };
        const send = handle.send.bind(handle);
        handle.send = (...args) => (counted.n++, send(...args));
        return counted;
      });

      for (let i = 0; i < 3; i++) await publish(t, tenant);
      await hook.waitFor(30);
      for (const sub of subs) {
        const records = await waitForDeliveries(t.dataSource, sub.id, 3, 10_000);
        expect(records.map((r) => r.status)).toEqual(['SUCCESS', 'SUCCESS', 'SUCCESS']);
      }
      expect(sends[0].n + sends[1].n).toBe(30);
      expect(sends[0].n).toBeGreaterThan(0);
      expect(sends[1].n).toBeGreaterThan(0);
      await new Promise((resolve) => setTimeout(resolve, 300));
      expect(hook.receipts).toHaveLength(30); // nothing sent twice
    } finally {
      await t.close();
    }
    expect(handlesOf(t).map((h) => h.thread)).toEqual([undefined, undefined]);
  });
});
