import { EventEmitter2 } from '@nestjs/event-emitter';
import { ValidationFailedException } from '../src/common/errors/validation-failed.exception';
import { WebhookEvent } from '../src/common/reference/enums';
import { LicenceCreatedSuccessEvent } from '../src/licence-events/licence-created-success.event';
import { LicenceEventPublisher } from '../src/dispatcher/licence-event.publisher';
import { createSubscription, licence, startDispatcherApp, waitForDeliveries } from './support/dispatcher';
import { Receiver } from './support/receiver';
import { testCa } from './support/test-ca';
import type { TestApp } from './support/test-app';
import { uniq } from './support/test-app';

/**
 * LicenceEventPublisher beside other in-process listeners of the same event (contract section 6):
 * the emitter stays the trigger, and what they return never stands in for the dispatcher's receipt.
 */
describe('LicenceEventPublisher with other listeners on the emitter', () => {
  const NAME = WebhookEvent.LICENCE_CREATED_SUCCESS;
  let t: TestApp;
  let hook: Receiver | undefined;
  let emitter: EventEmitter2;
  const seen: unknown[] = [];
  /** Another in-process listener, first in line, answering with something shaped like a receipt. */
  const lookalike = (event: unknown) => {
    seen.push(event);
    return Promise.resolve({ eventId: -1, matchedSubscriptions: 99 });
  };

  beforeAll(async () => {
    t = await startDispatcherApp();
    hook = await Receiver.start(testCa().server, { status: 200 });
    emitter = t.app.get(EventEmitter2);
    emitter.prependListener(NAME, lookalike);
  });
  afterAll(async () => {
    emitter?.off(NAME, lookalike);
    await hook?.close();
    await t?.close();
  });

  it("returns the receipt of the committed jobs, not another listener's answer", async () => {
    const tenant = uniq('tenant');
    const sub = await createSubscription(t, { tenant, url: hook!.url() });
    const event = new LicenceCreatedSuccessEvent({ tenant, licence: licence() });

    const receipt = await t.app.get(LicenceEventPublisher).emit(NAME, event);

    expect(receipt).toEqual({
      eventId: expect.any(Number),
      eventType: NAME,
      tenant,
      timestamp: event.timestamp.toISOString(),
      matchedSubscriptions: 1,
    });
    const [{ tenantOfEvent }] = await t.dataSource.query(
      `SELECT tenant AS "tenantOfEvent" FROM webhook_events WHERE id = $1`,
      [receipt.eventId],
    );
    expect(tenantOfEvent).toBe(tenant);
    expect(seen).toContain(event); // the other listener got the typed event too
    await waitForDeliveries(t.dataSource, sub.id, 1);
  });

  it('throws the outbox error to the caller while another listener answers', async () => {
    const tenant = uniq('tenant');
    await createSubscription(t, { tenant, url: hook!.url() });
    const bad = new LicenceCreatedSuccessEvent({ tenant, licence: licence({ pricing: -1 }) });

    await expect(t.app.get(LicenceEventPublisher).publish(bad)).rejects.toBeInstanceOf(
      ValidationFailedException,
    );
    const [{ events }] = await t.dataSource.query(
      `SELECT count(*)::int AS events FROM webhook_events WHERE tenant = $1`,
      [tenant],
    );
    expect(events).toBe(0);
  });
});
