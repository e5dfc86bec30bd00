import { UserRole, WebhookEvent } from '../src/common/reference/enums';
import { RetentionService } from '../src/retention/retention.service';
import { Subscription } from '../src/subscriptions/subscription.entity';
import { createSubscription, licence, startDispatcherApp, waitForDeliveries } from './support/dispatcher';
import { Receiver } from './support/receiver';
import { testCa } from './support/test-ca';
import { uniq, type TestApp, type TestUser } from './support/test-app';

const DAY = "interval '1 day'";

/**
 * The history's totalElements comes from webhook_delivery_counts (migration WebhookDeliveryCounts),
 * kept by triggers in the transaction of every writer: each test compares it with count(*) after
 * one kind of writer.
 */
describe('Delivery record counts (the history page total)', () => {
  let t: TestApp;
  let hook: Receiver;
  let partner: TestUser;
  let admin: TestUser;

  beforeAll(async () => {
    t = await startDispatcherApp();
    hook = await Receiver.start(testCa().server, { status: 200 });
    partner = await t.createUser({ role: UserRole.ROLE_PARTNER });
    admin = await t.createUser({ admin: true });
  });
  afterAll(async () => {
    await hook?.close();
    await t?.close();
  });

  const publish = (tenant: string) =>
    t
      .http()
      .post('/admin/licence-events')
      .set('authorization', `Bearer ${admin.token}`)
      .send({ eventType: WebhookEvent.LICENCE_CREATED_SUCCESS, tenant, licence: licence() })
      .expect(202);
  const totalElements = async (sub: Subscription, token = partner.token): Promise<number> =>
    (
      await t
        .http()
        .get(`/webhooks/subscriptions/${sub.id}/deliveries?size=1`)
        .set('authorization', `Bearer ${token}`)
        .expect(200)
    ).body.totalElements;
  /** The stored count (null: no row) and count(*) of each subscription's records. */
  const counts = async (subs: Subscription[]): Promise<Array<{ stored: number | null; actual: number }>> =>
    (
      await t.dataSource.query(
        `SELECT (SELECT records::int FROM webhook_delivery_counts c WHERE c.subscription_id = s.id) AS stored,
                (SELECT count(*)::int FROM webhook_deliveries d WHERE d.subscription_id = s.id) AS actual
         FROM unnest($1::int[]) WITH ORDINALITY AS s(id, n) ORDER BY n`,
        [subs.map((s) => s.id)],
      )
    ).map((row: { stored: number | null; actual: number }) => ({ stored: row.stored, actual: row.actual }));
  /** `count` records of `sub` attempted `ageDays` ago, straight into the table. */
  const oldRecords = async (sub: Subscription, count: number, ageDays: number): Promise<void> => {
    const [event] = await t.dataSource.query(
      `INSERT INTO webhook_events (event_type, tenant, occurred_at, payload, created_at)
       VALUES ('LICENCE_CREATED_SUCCESS', $1, now() - $2 * ${DAY}, '{}', now() - $2 * ${DAY}) RETURNING id`,
      [sub.tenant, ageDays],
    );
    await t.dataSource.query(
      `INSERT INTO webhook_deliveries (event_id, subscription_id, event_type, status, sent_at, created_at)
       SELECT $1, $2, 'LICENCE_CREATED_SUCCESS', 'SUCCESS', now() - $3 * ${DAY}, now() - $3 * ${DAY}
       FROM generate_series(1, $4)`,
      [event.id, sub.id, ageDays, count],
    );
  };

  // First: retention walks the records in id order and stops at the first young one.
  it('counts records written in one statement for many subscriptions, and those retention deletes', async () => {
    const tenant = uniq('tenant');
    const subs = [
      await createSubscription(t, { tenant, url: 'https://127.0.0.1:9/a' }),
      await createSubscription(t, { tenant, url: 'https://127.0.0.1:9/b' }),
      await createSubscription(t, { tenant, url: 'https://127.0.0.1:9/c' }),
    ];
    await oldRecords(subs[0], 1200, 40); // more than a retention batch
    await oldRecords(subs[1], 3, 40);
    await oldRecords(subs[0], 4, 1);
    await oldRecords(subs[1], 2, 1);
    await oldRecords(subs[2], 6, 1);
    await expect(counts(subs)).resolves.toEqual([
      { stored: 1204, actual: 1204 },
      { stored: 5, actual: 5 },
      { stored: 6, actual: 6 },
    ]);

    const run = await t.app.get(RetentionService).runOnce();
    expect(run).toMatchObject({ ran: true });
    await expect(counts(subs)).resolves.toEqual([
      { stored: 4, actual: 4 },
      { stored: 2, actual: 2 },
      { stored: 6, actual: 6 },
    ]);
  });

  it("counts the dispatcher's records, and the history page's total is the stored count", async () => {
    const subs = [
      await createSubscription(t, { tenant: partner.tenant, url: hook.url('/a') }),
      await createSubscription(t, { tenant: partner.tenant, url: hook.url('/b') }),
    ];
    await expect(totalElements(subs[0])).resolves.toBe(0);
    for (let i = 0; i < 5; i++) await publish(partner.tenant);
    for (const sub of subs) await waitForDeliveries(t.dataSource, sub.id, 5);
    await expect(counts(subs)).resolves.toEqual([
      { stored: 5, actual: 5 },
      { stored: 5, actual: 5 },
    ]);
    await expect(totalElements(subs[0])).resolves.toBe(5);

    // The page reads the stored number, not count(*).
    await t.dataSource.query(`UPDATE webhook_delivery_counts SET records = 7 WHERE subscription_id = $1`, [
      subs[0].id,
    ]);
    await expect(totalElements(subs[0])).resolves.toBe(7);
    await t.dataSource.query(`UPDATE webhook_delivery_counts SET records = 5 WHERE subscription_id = $1`, [
      subs[0].id,
    ]);
  });

  it('counts nothing of a subscription moved to another tenant, and its new records from zero', async () => {
    const from = uniq('tenant');
    const to = uniq('tenant');
    const sub = await createSubscription(t, { tenant: from, url: hook.url('/moved') });
    await publish(from);
    await publish(from);
    await waitForDeliveries(t.dataSource, sub.id, 2);
    await oldRecords(sub, 3, 1);
    await expect(counts([sub])).resolves.toEqual([{ stored: 5, actual: 5 }]);

    await t
      .http()
      .put(`/webhooks/subscriptions/${sub.id}`)
      .set('authorization', `Bearer ${admin.token}`)
      .send({ name: 'moved', url: hook.url('/moved'), events: ['LICENCE_CREATED_SUCCESS'], tenant: to })
      .expect(200);
    await expect(counts([sub])).resolves.toEqual([{ stored: 0, actual: 0 }]);
    await expect(totalElements(sub, admin.token)).resolves.toBe(0);

    await publish(to);
    await waitForDeliveries(t.dataSource, sub.id, 1);
    await expect(counts([sub])).resolves.toEqual([{ stored: 1, actual: 1 }]);
  });

  it('drops the count with its subscription, and with a TRUNCATE of the records', async () => {
    const tenant = uniq('tenant');
    const [gone, kept] = [
      await createSubscription(t, { tenant, url: 'https://127.0.0.1:9/gone' }),
      await createSubscription(t, { tenant, url: 'https://127.0.0.1:9/kept' }),
    ];
    await oldRecords(gone, 3, 1);
    await oldRecords(kept, 2, 1);
    await t
      .http()
      .delete(`/webhooks/subscriptions/${gone.id}`)
      .set('authorization', `Bearer ${admin.token}`)
      .expect(200);
    await expect(counts([gone, kept])).resolves.toEqual([
      { stored: null, actual: 0 },
      { stored: 2, actual: 2 },
    ]);

    await t.dataSource.query(`TRUNCATE webhook_deliveries`);
    await expect(counts([kept])).resolves.toEqual([{ stored: null, actual: 0 }]);
    await expect(totalElements(kept, admin.token)).resolves.toBe(0);
  });
});
