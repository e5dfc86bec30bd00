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

/** The delivery thread of a running app (private: only this spec reaches into it). */
const threadOf = (t: TestApp) =>
  (t.app.get(WebhookSender) as unknown as { thread: Worker | undefined }).thread;

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
});
