import { DeliveryTrigger, WebhookEvent } from '../src/common/reference/enums';
import { WebhookOutbox } from '../src/dispatcher';
import { Subscription } from '../src/subscriptions/subscription.entity';
import { createSubscription, startDispatcherApp } from './support/dispatcher';
import { TestApp, uniq } from './support/test-app';

/**
 * WebhookOutbox.enqueueAgain says, in the statement that queues, why nothing was queued: the partner
 * tools answer a subscription deleted, moved or deactivated since they read it with 404 or 409
 * without reading it again.
 */
describe('The outbox: what enqueueAgain did and saw (resend and recover races)', () => {
  let t: TestApp;
  let outbox: WebhookOutbox;

  beforeAll(async () => {
    t = await startDispatcherApp();
    outbox = t.app.get(WebhookOutbox);
  });
  afterAll(() => t?.close());

  async function storedEvent(tenant: string): Promise<string> {
    const [row] = (await t.dataSource.query(
      `INSERT INTO webhook_events (event_type, tenant, occurred_at, payload)
       VALUES ($1, $2, now(), '{}'::json) RETURNING id::text AS id`,
      [WebhookEvent.LICENCE_CREATED_SUCCESS, tenant],
    )) as Array<{ id: string }>;
    return row.id;
  }

  async function subscriptionWithEvent(): Promise<{ subscription: Subscription; eventId: string }> {
    const tenant = uniq('tenant');
    // Never answered: the attempt, if the worker makes it, fails and changes nothing asserted here.
    const subscription = await createSubscription(t, { tenant, url: 'https://receiver.invalid/hook' });
    return { subscription, eventId: await storedEvent(tenant) };
  }

  const again = (subscription: Subscription, eventIds: string[]) =>
    outbox.enqueueAgain(subscription, eventIds, DeliveryTrigger.RESEND);

  it('queues the events of an active subscription and counts those that exist', async () => {
    const { subscription, eventId } = await subscriptionWithEvent();
    await expect(again(subscription, [eventId, '999999999999'])).resolves.toEqual({
      enqueued: 1,
      active: true,
      events: 1,
    });
  });

  it('queues nothing for a deactivated subscription and says it is not active', async () => {
    const { subscription, eventId } = await subscriptionWithEvent();
    await t.dataSource.getRepository(Subscription).update(subscription.id, { active: false });
    await expect(again(subscription, [eventId])).resolves.toEqual({ enqueued: 0, active: false, events: 1 });
  });

  it('queues nothing for a deleted subscription, or one moved to another tenant, and says it is gone', async () => {
    const deleted = await subscriptionWithEvent();
    await t.dataSource.getRepository(Subscription).delete(deleted.subscription.id);
    await expect(again(deleted.subscription, [deleted.eventId])).resolves.toMatchObject({
      enqueued: 0,
      active: null,
    });

    const moved = await subscriptionWithEvent();
    await t.dataSource.getRepository(Subscription).update(moved.subscription.id, { tenant: uniq('tenant') });
    await expect(again(moved.subscription, [moved.eventId])).resolves.toEqual({
      enqueued: 0,
      active: null,
      events: 1,
    });
  });

  it('queues nothing when the events are gone (retention took them) and says none exists', async () => {
    const { subscription, eventId } = await subscriptionWithEvent();
    await t.dataSource.query('DELETE FROM webhook_events WHERE id = $1', [eventId]);
    await expect(again(subscription, [eventId])).resolves.toEqual({ enqueued: 0, active: true, events: 0 });
  });
});
