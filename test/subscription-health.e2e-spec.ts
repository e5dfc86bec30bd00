import { DeliveryStatus, DeliveryTrigger, UserRole, WebhookEvent } from '../src/common/reference/enums';
import {
  Completion,
  completionStatement,
  RECEIVER_GONE_MESSAGE,
} from '../src/dispatcher/completion.statement';
import type { Subscription } from '../src/subscriptions/subscription.entity';
import { createSubscription, licence, startDispatcherApp, waitForDeliveries } from './support/dispatcher';
import { Receiver } from './support/receiver';
import { testCa } from './support/test-ca';
import { uniq, type TestApp, type TestUser } from './support/test-app';

/** Subscription health and 410 Gone (contract section 11), over real HTTPS receivers. */
describe('subscription health', () => {
  let t: TestApp;
  let admin: TestUser;

  beforeAll(async () => {
    // Four slots: one delivery per subscription at a time, and one more claimed ahead.
    t = await startDispatcherApp({ WEBHOOK_CONCURRENCY: '4' });
    admin = await t.createUser({ admin: true });
  });
  afterAll(async () => {
    await t?.close();
  });

  const as = (user: TestUser) => ({
    get: (path: string) => t.http().get(path).set('authorization', `Bearer ${user.token}`),
  });

  async function publish(tenant: string, count = 1): Promise<void> {
    for (let i = 0; i < count; i++) {
      await t
        .http()
        .post('/admin/licence-events')
        .set('authorization', `Bearer ${admin.token}`)
        .send({ eventType: WebhookEvent.LICENCE_CREATED_SUCCESS, tenant, licence: licence() })
        .expect(202);
    }
  }

  async function healthOf(user: TestUser, id: number) {
    const res = await as(user).get(`/webhooks/subscriptions/${id}`).expect(200);
    return res.body.health;
  }

  /** The subscription's records through the API, oldest first. */
  async function recordsOf(user: TestUser, id: number) {
    const res = await as(user)
      .get(`/webhooks/subscriptions/${id}/deliveries?sort=sentAt,asc&size=100`)
      .expect(200);
    return res.body.content as Array<{
      sentAt: string;
      status: string;
      httpStatusCode: number | null;
      errorMessage: string | null;
    }>;
  }

  it('goes UNKNOWN → HEALTHY → FAILING (counting, failingSince kept) → HEALTHY with the attempts', async () => {
    const partner = await t.createUser({ role: UserRole.ROLE_PARTNER });
    const hook = await Receiver.start(testCa().server, { status: 200 });
    try {
      const sub = await createSubscription(t, { tenant: partner.tenant, url: hook.url() });
      await expect(healthOf(partner, sub.id)).resolves.toEqual({
        status: 'UNKNOWN',
        lastAttemptAt: null,
        lastSuccessAt: null,
        failingSince: null,
        consecutiveFailures: 0,
      });

      await publish(partner.tenant);
      await waitForDeliveries(t.dataSource, sub.id, 1);
      let records = await recordsOf(partner, sub.id);
      await expect(healthOf(partner, sub.id)).resolves.toEqual({
        status: 'HEALTHY',
        lastAttemptAt: records[0].sentAt,
        lastSuccessAt: records[0].sentAt,
        failingSince: null,
        consecutiveFailures: 0,
      });

      hook.behaviour = { status: 500 };
      await publish(partner.tenant);
      await waitForDeliveries(t.dataSource, sub.id, 2);
      records = await recordsOf(partner, sub.id);
      const firstFailure = records[1].sentAt;
      await expect(healthOf(partner, sub.id)).resolves.toEqual({
        status: 'FAILING',
        lastAttemptAt: firstFailure,
        lastSuccessAt: records[0].sentAt,
        failingSince: firstFailure,
        consecutiveFailures: 1,
      });

      await publish(partner.tenant, 2);
      await waitForDeliveries(t.dataSource, sub.id, 4);
      records = await recordsOf(partner, sub.id);
      expect(records.map((r) => r.status)).toEqual(['SUCCESS', 'FAILED', 'FAILED', 'FAILED']);
      await expect(healthOf(partner, sub.id)).resolves.toEqual({
        status: 'FAILING',
        lastAttemptAt: records[3].sentAt,
        lastSuccessAt: records[0].sentAt,
        failingSince: firstFailure,
        consecutiveFailures: 3,
      });

      hook.behaviour = { status: 204 };
      await publish(partner.tenant);
      await waitForDeliveries(t.dataSource, sub.id, 5);
      records = await recordsOf(partner, sub.id);
      await expect(healthOf(partner, sub.id)).resolves.toEqual({
        status: 'HEALTHY',
        lastAttemptAt: records[4].sentAt,
        lastSuccessAt: records[4].sentAt,
        failingSince: null,
        consecutiveFailures: 0,
      });
    } finally {
      await hook.close();
    }
  });

  it('is on create and update answers, and the lists filter by it with the other filters and paging', async () => {
    const partner = await t.createUser({ role: UserRole.ROLE_PARTNER });
    const body = {
      name: uniq('fresh'),
      url: 'https://receiver.example/hook',
      events: ['LICENCE_CREATED_SUCCESS'],
    };
    const created = await t
      .http()
      .post('/webhooks/subscriptions')
      .set('authorization', `Bearer ${partner.token}`)
      .send(body)
      .expect(200);
    expect(created.body.health).toMatchObject({ status: 'UNKNOWN', consecutiveFailures: 0 });
    const updated = await t
      .http()
      .put(`/webhooks/subscriptions/${created.body.id}`)
      .set('authorization', `Bearer ${partner.token}`)
      .send({ ...body, active: false })
      .expect(200);
    expect(updated.body.health).toMatchObject({ status: 'UNKNOWN', lastAttemptAt: null });

    const ok = await Receiver.start(testCa().server, { status: 200 });
    const bad = await Receiver.start(testCa().server, { status: 503 });
    try {
      const healthy = await createSubscription(t, { tenant: partner.tenant, url: ok.url(), name: 'hook-ok' });
      const failing = await createSubscription(t, {
        tenant: partner.tenant,
        url: bad.url(),
        name: 'hook-bad-1',
      });
      const failing2 = await createSubscription(t, {
        tenant: partner.tenant,
        url: bad.url(),
        name: 'hook-bad-2',
      });
      await publish(partner.tenant);
      for (const sub of [healthy, failing, failing2]) await waitForDeliveries(t.dataSource, sub.id, 1);

      const ids = async (query: string) =>
        (await as(partner).get(`/webhooks/subscriptions${query}`).expect(200)).body.content.map(
          (s: { id: number }) => s.id,
        );
      await expect(ids('?health=FAILING')).resolves.toEqual([failing.id, failing2.id]);
      await expect(ids('?health=HEALTHY')).resolves.toEqual([healthy.id]);
      await expect(ids('?health=UNKNOWN')).resolves.toEqual([created.body.id]);
      await expect(ids('?health=FAILING&index=BAD-2')).resolves.toEqual([failing2.id]);
      await expect(ids('?health=FAILING&index=-ok')).resolves.toEqual([]);
      await expect(ids('/active?health=FAILING')).resolves.toEqual([failing.id, failing2.id]);
      await expect(ids('/active?active=false&health=UNKNOWN')).resolves.toEqual([created.body.id]);

      const page = await as(partner).get('/webhooks/subscriptions?health=FAILING&size=1&page=1').expect(200);
      expect(page.body).toMatchObject({ totalElements: 2, totalPages: 2, number: 1 });
      expect(page.body.content.map((s: Subscription) => s.id)).toEqual([failing2.id]);
      expect(page.body._links.prev.href).toContain('health=FAILING');
    } finally {
      await ok.close();
      await bad.close();
    }
  });

  it('refuses a bad health filter with the error body', async () => {
    const partner = await t.createUser({ role: UserRole.ROLE_PARTNER });
    for (const path of ['/webhooks/subscriptions', '/webhooks/subscriptions/active']) {
      for (const query of ['health=BROKEN', 'health=failing', 'health=FAILING&health=HEALTHY', 'health=']) {
        const res = await as(partner).get(`${path}?${query}`).expect(400);
        expect(res.body).toMatchObject({
          status: 400,
          error: 'Bad Request',
          path,
          errors: [{ field: 'health', message: 'health must be one of HEALTHY, FAILING, UNKNOWN' }],
        });
      }
    }
  });

  it('410 Gone deactivates the subscription; its queued jobs are recorded FAILED, never sent', async () => {
    const partner = await t.createUser({ role: UserRole.ROLE_PARTNER });
    const gone = await Receiver.start(testCa().server, { status: 410, delayMs: 300 });
    const other = await Receiver.start(testCa().server, { status: 200 });
    try {
      const sub = await createSubscription(t, { tenant: partner.tenant, url: gone.url() });
      const neighbour = await createSubscription(t, { tenant: partner.tenant, url: other.url() });
      // One in flight, one claimed ahead behind it, the rest in the outbox.
      await publish(partner.tenant, 6);
      await waitForDeliveries(t.dataSource, sub.id, 6);
      await waitForDeliveries(t.dataSource, neighbour.id, 6);

      expect(gone.receipts).toHaveLength(1);
      const records = await recordsOf(partner, sub.id);
      expect(records[0]).toMatchObject({
        status: 'FAILED',
        httpStatusCode: 410,
        errorMessage: RECEIVER_GONE_MESSAGE,
      });
      expect(records.slice(1)).toEqual(
        Array(5).fill(
          expect.objectContaining({
            status: 'FAILED',
            httpStatusCode: null,
            errorMessage: 'subscription inactive',
          }),
        ),
      );
      const res = await as(partner).get(`/webhooks/subscriptions/${sub.id}`).expect(200);
      expect(res.body.active).toBe(false);
      expect(res.body.health).toMatchObject({
        status: 'FAILING',
        failingSince: records[0].sentAt,
        consecutiveFailures: 6,
      });
      await expect(healthOf(partner, neighbour.id)).resolves.toMatchObject({ status: 'HEALTHY' });

      // A test event still goes to an inactive subscription (contract section 9).
      gone.behaviour = { status: 200 };
      await t
        .http()
        .post(`/webhooks/subscriptions/${sub.id}/test`)
        .set('authorization', `Bearer ${partner.token}`)
        .send({})
        .expect(202);
      await gone.waitFor(2);
      await waitForDeliveries(t.dataSource, sub.id, 7);
      await new Promise((r) => setTimeout(r, 300));
      expect(gone.receipts).toHaveLength(2);
      await expect(healthOf(partner, sub.id)).resolves.toMatchObject({
        status: 'HEALTHY',
        consecutiveFailures: 0,
      });
    } finally {
      await gone.close();
      await other.close();
    }
  });

  it('a deactivation while a delivery is in flight: the jobs claimed ahead and waiting are recorded FAILED, never sent', async () => {
    const partner = await t.createUser({ role: UserRole.ROLE_PARTNER });
    const hook = await Receiver.start(testCa().server, { status: 200, delayMs: 400 });
    try {
      const sub = await createSubscription(t, { tenant: partner.tenant, url: hook.url() });
      await publish(partner.tenant, 3);
      await hook.waitFor(1);
      // As a PUT does (any instance): the deactivation trigger's NOTIFY reaches every worker.
      await t.dataSource.query(`UPDATE subscriptions SET active = false WHERE id = $1`, [sub.id]);
      const records = await waitForDeliveries(t.dataSource, sub.id, 3);
      expect(records.map((r) => r.errorMessage).sort()).toEqual([
        null,
        'subscription inactive',
        'subscription inactive',
      ]);
      await new Promise((r) => setTimeout(r, 500));
      expect(hook.receipts).toHaveLength(1);
    } finally {
      await hook.close();
    }
  });

  it('jobs already in the outbox for an inactive subscription are recorded FAILED, never sent', async () => {
    const partner = await t.createUser({ role: UserRole.ROLE_PARTNER });
    const hook = await Receiver.start(testCa().server, { status: 200 });
    try {
      const sub = await createSubscription(t, { tenant: partner.tenant, url: hook.url() });
      await t.dataSource.query(`UPDATE subscriptions SET active = false WHERE id = $1`, [sub.id]);
      // Queued while it was active: the jobs are in the outbox already.
      const [event] = await t.dataSource.query(
        `INSERT INTO webhook_events (event_type, tenant, occurred_at, payload)
         VALUES ('LICENCE_CREATED_SUCCESS', $1, now(), '{}') RETURNING id`,
        [partner.tenant],
      );
      await t.dataSource.query(`INSERT INTO webhook_jobs (event_id, subscription_id) VALUES ($1, $2)`, [
        event.id,
        sub.id,
      ]);
      const [record] = await waitForDeliveries(t.dataSource, sub.id, 1);
      expect(record).toMatchObject({
        status: 'FAILED',
        errorMessage: 'subscription inactive',
        httpStatusCode: null,
      });
      expect(hook.receipts).toHaveLength(0);
    } finally {
      await hook.close();
    }
  });

  describe('the completion statement', () => {
    let sub: Subscription;
    let eventId: string;
    const at = (second: number) => new Date(Date.UTC(2026, 10, 1, 0, 0, second));

    beforeEach(async () => {
      const tenant = uniq('tenant');
      sub = await createSubscription(t, { tenant, url: 'https://receiver.example/hook' });
      const [event] = await t.dataSource.query(
        `INSERT INTO webhook_events (event_type, tenant, occurred_at, payload)
         VALUES ('LICENCE_CREATED_SUCCESS', $1, now(), '{}') RETURNING id`,
        [tenant],
      );
      eventId = event.id;
    });

    const attempt = (second: number, status: DeliveryStatus, tenant = sub.tenant): Completion => ({
      jobId: '0',
      eventId,
      subscriptionId: sub.id,
      eventType: WebhookEvent.LICENCE_CREATED_SUCCESS,
      tenant,
      status,
      httpStatusCode: status === DeliveryStatus.SUCCESS ? 200 : 500,
      errorMessage: status === DeliveryStatus.SUCCESS ? null : 'HTTP 500 Internal Server Error',
      sentAt: at(second),
      trigger: DeliveryTrigger.EVENT,
      durationMs: 5,
      responseBody: null,
    });

    async function complete(batch: Completion[]): Promise<Record<string, unknown>> {
      const { text, values } = completionStatement(batch);
      await t.dataSource.query(text, values);
      const [row] = await t.dataSource.query(
        `SELECT last_attempt_at AS "lastAttemptAt", last_success_at AS "lastSuccessAt",
                failing_since AS "failingSince", consecutive_failures AS "consecutiveFailures"
         FROM subscriptions WHERE id = $1`,
        [sub.id],
      );
      return row;
    }

    const { SUCCESS: OK, FAILED: KO } = DeliveryStatus;

    it('aggregates one batch in order: the last outcome decides, failures after the last success count', async () => {
      await expect(
        complete([attempt(1, KO), attempt(2, OK), attempt(4, KO), attempt(3, KO)]),
      ).resolves.toEqual({
        lastAttemptAt: at(4),
        lastSuccessAt: at(2),
        failingSince: at(3),
        consecutiveFailures: 2,
      });
      // The run goes on across batches: its start is kept (or moved back by an outcome that arrived
      // late), the failures add up.
      await expect(complete([attempt(5, KO)])).resolves.toMatchObject({
        failingSince: at(3),
        consecutiveFailures: 3,
      });
      await expect(complete([attempt(0, KO)])).resolves.toMatchObject({
        lastAttemptAt: at(5),
        failingSince: at(0),
        consecutiveFailures: 4,
      });
      await expect(complete([attempt(6, KO), attempt(7, OK)])).resolves.toEqual({
        lastAttemptAt: at(7),
        lastSuccessAt: at(7),
        failingSince: null,
        consecutiveFailures: 0,
      });
    });

    it('starts a run of failures on a subscription never attempted, from an attempt with no answer', async () => {
      await expect(
        complete([{ ...attempt(1, KO), httpStatusCode: null, responseBody: null }]),
      ).resolves.toEqual({
        lastAttemptAt: at(1),
        lastSuccessAt: null,
        failingSince: at(1),
        consecutiveFailures: 1,
      });
    });

    it('counts only the attempts it records (not those of a subscription moved meanwhile)', async () => {
      await expect(complete([attempt(1, KO, 'another-tenant')])).resolves.toEqual({
        lastAttemptAt: null,
        lastSuccessAt: null,
        failingSince: null,
        consecutiveFailures: 0,
      });
      const [{ n }] = await t.dataSource.query(
        `SELECT count(*)::int AS n FROM webhook_deliveries WHERE subscription_id = $1`,
        [sub.id],
      );
      expect(n).toBe(0);
    });
  });
});
