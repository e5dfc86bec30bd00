import { Webhook } from 'standardwebhooks';
import type { Response } from 'supertest';
import type { QueryRunner } from 'typeorm';
import { DeliveryTrigger, UserRole, WebhookEvent } from '../src/common/reference/enums';
import { Subscription } from '../src/subscriptions/subscription.entity';
import {
  createSubscription,
  licence,
  pendingJobs,
  signingSecretOf,
  sleep,
  startDispatcherApp,
  waitForDeliveries,
} from './support/dispatcher';
import { scrape, valueOf } from './support/metrics';
import { Behaviour, Receipt, Receiver } from './support/receiver';
import { testCa } from './support/test-ca';
import type { TestApp, TestUser } from './support/test-app';

interface RecordRow {
  id: string;
  eventId: string;
  status: string;
  trigger: string;
  durationMs: number | null;
  responseBody: string | null;
}

const ERROR_BODY_KEYS = ['error', 'message', 'path', 'requestId', 'status', 'timestamp'];
/** The deliveries' time-out: one test waits for it (a hanging receiver); short, but not tight. */
const TIMEOUT_MS = 3000;

describe('Partner tools: richer records, filters, resend, recover, test events (contract section 9)', () => {
  let t: TestApp;
  const receivers: Receiver[] = [];
  let partner: TestUser;
  let stranger: TestUser;
  let client: TestUser;
  let admin: TestUser;

  beforeAll(async () => {
    t = await startDispatcherApp({ RETENTION_DAYS: '7', WEBHOOK_TIMEOUT_MS: String(TIMEOUT_MS) });
    partner = await t.createUser({ role: UserRole.ROLE_PARTNER });
    stranger = await t.createUser({ role: UserRole.ROLE_PARTNER });
    client = await t.createUser({ role: UserRole.ROLE_CLIENT, tenant: partner.tenant });
    admin = await t.createUser({ admin: true });
  });
  afterAll(async () => {
    for (const r of receivers) await r.close();
    await t?.close();
  });

  const receiver = async (behaviour: Behaviour = { status: 200 }) => {
    const r = await Receiver.start(testCa().server, behaviour);
    receivers.push(r);
    return r;
  };
  const as = (user: TestUser) => ({
    get: (path: string) => t.http().get(path).set('authorization', `Bearer ${user.token}`),
    put: (path: string) => t.http().put(path).set('authorization', `Bearer ${user.token}`),
    delete: (path: string) => t.http().delete(path).set('authorization', `Bearer ${user.token}`),
    post: (path: string, body?: object) => {
      const req = t.http().post(path).set('authorization', `Bearer ${user.token}`);
      return body === undefined ? req : req.send(body);
    },
  });
  const base = (sub: Subscription) => `/webhooks/subscriptions/${sub.id}`;

  /** Publishes one event for the tenant (as an administrator); returns its id. */
  async function publish(tenant: string, eventType = WebhookEvent.LICENCE_CREATED_SUCCESS): Promise<number> {
    const body =
      eventType === WebhookEvent.LICENCE_CREATED_SUCCESS
        ? { eventType, tenant, licence: licence() }
        : { eventType, tenant, error: { message: 'no plan', type: 'PlanException' } };
    const res = await as(admin).post('/admin/licence-events', body).expect(202);
    return res.body.eventId;
  }

  async function recordsOf(subscriptionId: number): Promise<RecordRow[]> {
    return t.dataSource.query(
      `SELECT id, event_id AS "eventId", status, trigger, duration_ms AS "durationMs",
              response_body AS "responseBody"
       FROM webhook_deliveries WHERE subscription_id = $1 ORDER BY id`,
      [subscriptionId],
    );
  }

  /** Waits until the subscription has `count` records and `pending` pending jobs. */
  async function settled(subscriptionId: number, count: number, pending = 0): Promise<RecordRow[]> {
    await waitForDeliveries(t.dataSource, subscriptionId, count, 15_000);
    for (let i = 0; i < 200 && (await pendingJobs(t.dataSource, subscriptionId)) > pending; i++) {
      await sleep(50);
    }
    return recordsOf(subscriptionId);
  }

  /** What a receiver does with `standardwebhooks`: every copy verifies with the subscription's secret. */
  const expectSigned = (sub: Subscription, receipts: Receipt[]) => {
    const webhook = new Webhook(signingSecretOf(t, sub));
    for (const r of receipts) {
      expect(webhook.verify(r.raw, r.headers as Record<string, string>)).toEqual(r.body);
    }
  };

  const expectErrorBody = (body: Record<string, unknown>) =>
    expect(
      Object.keys(body)
        .filter((k) => k !== 'errors')
        .sort(),
    ).toEqual(ERROR_BODY_KEYS);

  describe('richer records', () => {
    it('records eventId, trigger, durationMs and the first 1,024 bytes of the answer, cut on a character', async () => {
      // 2 + 3 × 400 bytes: the 1,024-byte cut falls inside a '€' (3 bytes), so it goes back to 1,022.
      const answer = 'ab' + '€'.repeat(400);
      const hook = await receiver({ status: 500, body: answer, headers: { 'content-type': 'text/plain' } });
      const sub = await createSubscription(t, { tenant: partner.tenant, url: hook.url() });
      const eventId = await publish(partner.tenant);
      const [record] = await settled(sub.id, 1);
      expect(record).toMatchObject({ eventId: String(eventId), status: 'FAILED', trigger: 'EVENT' });
      expect(record.responseBody).toBe('ab' + '€'.repeat(340));
      expect(Buffer.byteLength(record.responseBody!)).toBe(1022);
      expect(record.durationMs).toEqual(expect.any(Number));
      expect(record.durationMs).toBeGreaterThanOrEqual(0);

      const listed = await as(partner)
        .get(`${base(sub)}/deliveries`)
        .expect(200);
      expect(listed.body.content[0]).toMatchObject({
        eventId,
        trigger: 'EVENT',
        durationMs: record.durationMs,
        responseBody: record.responseBody,
        httpStatusCode: 500,
      });
    });

    it('keeps 1,024 bytes of a huge answer and still records it', async () => {
      const hook = await receiver((_req, res) => {
        res.writeHead(200, { 'content-type': 'text/plain' });
        res.end('x'.repeat(2 * 1024 * 1024));
      });
      const sub = await createSubscription(t, { tenant: partner.tenant, url: hook.url() });
      await publish(partner.tenant);
      const [record] = await settled(sub.id, 1);
      expect(record).toMatchObject({ status: 'SUCCESS', responseBody: 'x'.repeat(1024) });
    });

    it('has a duration and no answer for a time-out; no duration when nothing was sent', async () => {
      const hang = await receiver({ hang: true });
      const timedOut = await createSubscription(t, { tenant: partner.tenant, url: hang.url() });
      // A custom header that cannot be decrypted: the delivery fails before anything is sent.
      const sealed = await createSubscription(t, {
        tenant: partner.tenant,
        url: hang.url('/never'),
        headerName: 'X-Key',
        headerValue: 'secret',
      });
      await t.dataSource.query(`UPDATE subscriptions SET header_value_encrypted = 'garbage' WHERE id = $1`, [
        sealed.id,
      ]);
      await publish(partner.tenant);
      const [late] = await settled(timedOut.id, 1);
      expect(late).toMatchObject({ status: 'FAILED', responseBody: null });
      expect(late.durationMs).toBeGreaterThanOrEqual(TIMEOUT_MS - 100);
      const [unsent] = await settled(sealed.id, 1);
      expect(unsent).toMatchObject({ status: 'FAILED', durationMs: null, responseBody: null });
      expect(hang.receipts.filter((r) => r.path === '/never')).toHaveLength(0);
    });

    it('shows the exact body sent in the record detail', async () => {
      const hook = await receiver({ status: 200, body: '' });
      const sub = await createSubscription(t, { tenant: partner.tenant, url: hook.url() });
      await publish(partner.tenant, WebhookEvent.LICENCE_CREATED_FAILED);
      const [record] = await settled(sub.id, 1);
      expect(record.responseBody).toBe(''); // an answer with an empty body
      const detail = await as(partner)
        .get(`${base(sub)}/deliveries/${record.id}`)
        .expect(200);
      const [receipt] = hook.receipts;
      expect(detail.body.payload).toEqual(receipt.body);
      expect(JSON.stringify(detail.body.payload)).toBe(receipt.raw);
      expect(detail.body._links.resend.href).toBe(`${base(sub)}/deliveries/${record.id}/resend`);
      // Another tenant's, or another subscription's record: 404; a client: 403.
      await as(stranger)
        .get(`${base(sub)}/deliveries/${record.id}`)
        .expect(404);
      const other = await createSubscription(t, { tenant: partner.tenant, url: hook.url('/other') });
      await as(partner)
        .get(`${base(other)}/deliveries/${record.id}`)
        .expect(404);
      await as(client)
        .get(`${base(sub)}/deliveries/${record.id}`)
        .expect(403);
      // Not in the list.
      const listed = await as(partner)
        .get(`${base(sub)}/deliveries`)
        .expect(200);
      expect(listed.body.content[0]).not.toHaveProperty('payload');
    });
  });

  describe('list filters', () => {
    let sub: Subscription;
    let ids: Record<string, number>;

    /** Six records of one event, with every filterable field varied; sentAt 10:00..10:05 UTC. */
    beforeAll(async () => {
      sub = await createSubscription(t, { tenant: partner.tenant, url: 'https://127.0.0.1:1/none' });
      const [event] = await t.dataSource.query(
        `INSERT INTO webhook_events (event_type, tenant, occurred_at, payload)
         VALUES ('LICENCE_CREATED_SUCCESS', $1, now(), '{}') RETURNING id`,
        [sub.tenant],
      );
      const rows: Array<[string, string, string, string]> = [
        ['a', 'SUCCESS', 'LICENCE_CREATED_SUCCESS', 'EVENT'],
        ['b', 'FAILED', 'LICENCE_CREATED_SUCCESS', 'EVENT'],
        ['c', 'FAILED', 'LICENCE_CREATED_FAILED', 'RESEND'],
        ['d', 'SUCCESS', 'LICENCE_CREATED_FAILED', 'RECOVER'],
        ['e', 'FAILED', 'LICENCE_CREATED_SUCCESS', 'TEST'],
        ['f', 'SUCCESS', 'LICENCE_CREATED_SUCCESS', 'RESEND'],
      ];
      ids = {};
      for (const [i, [name, status, eventType, trigger]] of rows.entries()) {
        const [row] = await t.dataSource.query(
          `INSERT INTO webhook_deliveries (event_id, subscription_id, event_type, status, trigger, sent_at)
           VALUES ($1, $2, $3, $4, $5, timestamptz '2026-03-01T10:00:00Z' + $6 * interval '1 minute')
           RETURNING id`,
          [event.id, sub.id, eventType, status, trigger, i],
        );
        ids[name] = Number(row.id);
      }
    });

    const names = (content: Array<{ id: number }>) =>
      content.map((r) => Object.keys(ids).find((k) => ids[k] === r.id));
    const list = async (query: string) => {
      const res = await as(partner)
        .get(`${base(sub)}/deliveries?${query}`)
        .expect(200);
      return res.body;
    };

    it.each([
      ['status=FAILED', ['e', 'c', 'b']],
      ['status=SUCCESS', ['f', 'd', 'a']],
      ['eventType=LICENCE_CREATED_FAILED', ['d', 'c']],
      ['trigger=RESEND', ['f', 'c']],
      ['trigger=TEST', ['e']],
      ['trigger=EVENT&status=SUCCESS', ['a']],
      ['since=2026-03-01T10:02:00Z', ['f', 'e', 'd', 'c']],
      ['until=2026-03-01T10:02:00.000Z', ['b', 'a']],
      ['since=2026-03-01T11:01:00%2B01:00&until=2026-03-01T10:04:00Z', ['d', 'c', 'b']],
      ['since=2026-03-01&until=2026-03-02', ['f', 'e', 'd', 'c', 'b', 'a']],
      ['status=FAILED&sort=sentAt,asc', ['b', 'c', 'e']],
      ['status=SUCCESS&eventType=LICENCE_CREATED_SUCCESS&trigger=RESEND&since=2026-03-01T10:05:00Z', ['f']],
      ['until=2026-03-01T10:00:00Z', []],
      ['since=0001-01-01T00:00:00Z&until=9999-12-31T23:59:59.999Z', ['f', 'e', 'd', 'c', 'b', 'a']],
      ['since=9999-12-31', []],
    ])('filters by %s', async (query, expected) => {
      const body = await list(query);
      expect(names(body.content)).toEqual(expected);
      expect(body.totalElements).toBe(expected.length);
    });

    it('pages a filtered list, the links keeping the filters', async () => {
      const first = await list('status=FAILED&size=2');
      expect(first).toMatchObject({ totalElements: 3, totalPages: 2, numberOfElements: 2 });
      expect(names(first.content)).toEqual(['e', 'c']);
      expect(first._links.next.href).toBe(`${base(sub)}/deliveries?status=FAILED&size=2&page=1`);
      const second = await as(partner).get(first._links.next.href).expect(200);
      expect(names(second.body.content)).toEqual(['b']);
      const both = await list('trigger=RESEND&since=2026-03-01T10:00:00.000Z&sort=id');
      expect(both._links.self.href).toBe(
        `${base(sub)}/deliveries?trigger=RESEND&since=2026-03-01T10%3A00%3A00.000Z&sort=id&size=20&page=0`,
      );
      // Without filters: the whole history.
      expect((await list('')).totalElements).toBe(6);
    });

    it.each([
      ['status=PENDING', 'status'],
      ['status=failed', 'status'],
      ['status=FAILED&status=SUCCESS', 'status'],
      ['eventType=LICENCE_DELETED', 'eventType'],
      ['trigger=MANUAL', 'trigger'],
      ['trigger=', 'trigger'],
      ['since=yesterday', 'since'],
      ['since=2026-03-01T10:00:00', 'since'], // no zone
      ['since=2026-02-30T10:00:00Z', 'since'],
      ['until=2026-03-01T25:00:00Z', 'until'],
      ['until=1700000000000', 'until'],
      ['until=2026-03-01T10:00:00Z&until=2026-03-02T10:00:00Z', 'until'],
      ['sort=responseBody', 'sort'],
      ['since=0000-01-01T00:00:00Z', 'since'], // no year 0 in ISO 8601's basic calendar
    ])('answers 400 naming the filter for %s', async (query, field) => {
      const res = await as(partner)
        .get(`${base(sub)}/deliveries?${query}`)
        .expect(400);
      expectErrorBody(res.body);
      expect(res.body.errors.map((e: { field: string }) => e.field)).toEqual([field]);
    });

    it('sorts by trigger and durationMs', async () => {
      expect(names((await list('sort=trigger&sort=id')).content)).toEqual(['a', 'b', 'd', 'c', 'f', 'e']);
      expect((await list('sort=durationMs')).totalElements).toBe(6);
    });
  });

  describe('resend', () => {
    it('sends the same body and event id again to the current URL and header, as a RESEND attempt', async () => {
      const first = await receiver({ status: 503, body: 'down' });
      const second = await receiver({ status: 200, body: 'thanks' });
      const sub = await createSubscription(t, {
        tenant: partner.tenant,
        url: first.url(),
        headerName: 'X-Hook-Key',
        headerValue: 'old-key',
      });
      const eventId = await publish(partner.tenant);
      const [failed] = await settled(sub.id, 1);
      expect(failed).toMatchObject({ status: 'FAILED', trigger: 'EVENT' });

      // The partner fixes the endpoint: a new URL and header value.
      await as(partner)
        .put(base(sub))
        .send({
          name: sub.name,
          url: second.url(),
          events: sub.events,
          headerName: 'X-Hook-Key',
          headerValue: 'new-key',
        })
        .expect(200);
      const res = await as(partner)
        .post(`${base(sub)}/deliveries/${failed.id}/resend`)
        .expect(202);
      expect(res.body).toEqual({ eventId, subscriptionId: sub.id });

      const records = await settled(sub.id, 2);
      expect(records).toMatchObject([
        { id: failed.id, status: 'FAILED', trigger: 'EVENT', responseBody: 'down' }, // unchanged
        { eventId: String(eventId), status: 'SUCCESS', trigger: 'RESEND', responseBody: 'thanks' },
      ]);
      const [original] = first.receipts;
      const [again] = await second.waitFor(1);
      expect(again.raw).toBe(original.raw); // byte for byte
      expect(again.headers['x-hook-key']).toBe('new-key');
      // The same webhook-id (the event id) on both, each signed.
      expect(again.headers['webhook-id']).toBe(String(eventId));
      expect(original.headers['webhook-id']).toBe(String(eventId));
      expectSigned(sub, [original, again]);
      expect(second.receipts).toHaveLength(1);

      // Resend of the resend's own record: the same event again.
      const history = await as(partner)
        .get(`${base(sub)}/deliveries?trigger=RESEND`)
        .expect(200);
      expect(history.body.content).toEqual([
        expect.objectContaining({ eventId, trigger: 'RESEND', status: 'SUCCESS' }),
      ]);
      await as(admin).post(history.body.content[0]._links.resend.href).expect(202);
      await settled(sub.id, 3);
      expect((await second.waitFor(2))[1].raw).toBe(original.raw);
    });

    it('is 409 for an inactive subscription, 404 for another tenant or another subscription’s record, 403 for a client', async () => {
      const hook = await receiver({ status: 500 });
      const sub = await createSubscription(t, { tenant: partner.tenant, url: hook.url() });
      const other = await createSubscription(t, { tenant: partner.tenant, url: hook.url('/other') });
      await publish(partner.tenant);
      const [record] = await settled(sub.id, 1);
      const path = `${base(sub)}/deliveries/${record.id}/resend`;

      expectErrorBody((await as(stranger).post(path).expect(404)).body);
      await as(partner)
        .post(`${base(other)}/deliveries/${record.id}/resend`)
        .expect(404);
      await as(partner)
        .post(`${base(sub)}/deliveries/${Number(record.id) + 100000}/resend`)
        .expect(404);
      await as(client).post(path).expect(403);
      await t.http().post(path).expect(401);
      await as(partner)
        .post(`${base(sub)}/deliveries/0/resend`)
        .expect(400);
      await as(partner).post(`/webhooks/subscriptions/x/deliveries/${record.id}/resend`).expect(400);

      await t.dataSource.query(`UPDATE subscriptions SET active = false WHERE id = $1`, [sub.id]);
      const conflict = await as(partner).post(path).expect(409);
      expectErrorBody(conflict.body);
      expect(conflict.body.message).toMatch(/not active/);
      await sleep(200);
      expect(await pendingJobs(t.dataSource, sub.id)).toBe(0);
      expect(await recordsOf(sub.id)).toHaveLength(1);
    });

    /**
     * Runs `meanwhile` while the resend waits: the outbox held (the resend reads the subscription
     * and the record, then its insert waits for the lock); `meanwhile` runs in the transaction that
     * holds the lock, and commits with its release, before the insert runs. Returns the answer.
     */
    async function resendRacing(
      sub: Subscription,
      recordId: string,
      meanwhile: (holder: QueryRunner) => Promise<unknown>,
    ): Promise<Response> {
      const holder = t.dataSource.createQueryRunner();
      await holder.connect();
      try {
        await holder.startTransaction();
        await holder.query('LOCK TABLE webhook_jobs IN SHARE ROW EXCLUSIVE MODE');
        const answer = as(partner)
          .post(`${base(sub)}/deliveries/${recordId}/resend`)
          .then((res) => res);
        for (let i = 0; ; i++) {
          // The resend's own statement (not a claim of the worker's) waiting for the lock.
          const [{ waiting }] = await t.dataSource.query(
            `SELECT count(*)::int AS waiting FROM pg_stat_activity
             WHERE wait_event_type = 'Lock' AND query LIKE '%INSERT INTO webhook_jobs%trigger)%$3%'`,
          );
          if (waiting > 0) break;
          if (i === 200) throw new Error('the resend never reached the outbox');
          await sleep(25);
        }
        await meanwhile(holder);
        await holder.commitTransaction();
        return await answer;
      } finally {
        if (holder.isTransactionActive) await holder.rollbackTransaction();
        await holder.release();
      }
    }

    it('is 409, not 202 with nothing queued, when the subscription is deactivated while the resend runs', async () => {
      const hook = await receiver({ status: 500 });
      const sub = await createSubscription(t, { tenant: partner.tenant, url: hook.url() });
      await publish(partner.tenant);
      const [record] = await settled(sub.id, 1);

      const res = await resendRacing(sub, record.id, (holder) =>
        holder.query(`UPDATE subscriptions SET active = false WHERE id = $1`, [sub.id]),
      );
      expect(res.status).toBe(409);
      expectErrorBody(res.body);
      expect(res.body.message).toMatch(/not active/);
      expect(await pendingJobs(t.dataSource, sub.id)).toBe(0);
      expect(await recordsOf(sub.id)).toHaveLength(1);
    });

    it('is 404, not 202 with nothing queued, when retention takes the record and its event while the resend runs', async () => {
      const hook = await receiver({ status: 500 });
      const sub = await createSubscription(t, { tenant: partner.tenant, url: hook.url() });
      const eventId = await publish(partner.tenant);
      const [record] = await settled(sub.id, 1);

      // What a retention pass does to a record past RETENTION_DAYS: the record, then its event.
      const res = await resendRacing(sub, record.id, async (holder) => {
        await holder.query(`DELETE FROM webhook_deliveries WHERE id = $1`, [record.id]);
        await holder.query(`DELETE FROM webhook_events WHERE id = $1`, [eventId]);
      });
      expect(res.status).toBe(404);
      expectErrorBody(res.body);
      expect(res.body.message).toBe('Delivery not found');
      expect(await pendingJobs(t.dataSource, sub.id)).toBe(0);
      expect(await recordsOf(sub.id)).toHaveLength(0);
    });
  });

  describe('recover', () => {
    it('sends once exactly the events whose latest attempt failed, even when called twice at once', async () => {
      const hook = await receiver({ status: 500 });
      const tenant = partner.tenant;
      const sub = await createSubscription(t, { tenant, url: hook.url() });
      const sibling = await createSubscription(t, { tenant, url: hook.url('/sibling') });

      const events: number[] = [];
      for (let i = 0; i < 6; i++) events.push(await publish(tenant));
      await settled(sub.id, 6);
      await settled(sibling.id, 6);
      const [recovered1, recovered2, recovered3, laterSuccess, pending, beforeWindow] = events;

      // laterSuccess: resent with the receiver up, so its latest attempt is a SUCCESS.
      hook.behaviour = { status: 200 };
      const records = await recordsOf(sub.id);
      const recordOf = (eventId: number) => records.find((r) => r.eventId === String(eventId))!;
      await as(partner)
        .post(`${base(sub)}/deliveries/${recordOf(laterSuccess).id}/resend`)
        .expect(202);
      await settled(sub.id, 7);
      // pending: already has a job for this subscription (held by a lease of another instance).
      await t.dataSource.query(
        `INSERT INTO webhook_jobs (event_id, subscription_id, trigger, lease_until, leased_by)
         VALUES ($1, $2, 'RESEND', now() + interval '1 hour', 'elsewhere')`,
        [pending, sub.id],
      );
      // beforeWindow: its failed attempt lies before `since`.
      await t.dataSource.query(
        `UPDATE webhook_deliveries SET sent_at = now() - interval '2 days' WHERE event_id = $1 AND subscription_id = $2`,
        [beforeWindow, sub.id],
      );
      const since = new Date(Date.now() - 24 * 3600_000).toISOString();
      const before = hook.receipts.length;

      const [a, b] = await Promise.all([
        as(partner).post(`${base(sub)}/recover`, { since }),
        as(partner).post(`${base(sub)}/recover`, { since }),
      ]);
      expect([a.status, b.status]).toEqual([202, 202]);
      expect(a.body.events + b.body.events).toBe(3);

      const after = await settled(sub.id, 10, 1); // the other instance's job stays
      await sleep(300);
      const recovered = after.filter((r) => r.trigger === DeliveryTrigger.RECOVER);
      expect(recovered.map((r) => Number(r.eventId)).sort((x, y) => x - y)).toEqual(
        [recovered1, recovered2, recovered3].sort((x, y) => x - y),
      );
      expect(recovered.every((r) => r.status === 'SUCCESS')).toBe(true);
      expect(await recordsOf(sub.id)).toHaveLength(10);
      const sent = hook.receipts.slice(before);
      expect(sent.map((r) => r.path)).toEqual(['/hook', '/hook', '/hook']); // not to the sibling
      expect(new Set(sent.map((r) => r.raw)).size).toBe(3);
      expect(sent.map((r) => r.headers['webhook-id']).sort()).toEqual(
        [recovered1, recovered2, recovered3].map(String).sort(),
      );
      expectSigned(sub, sent);

      // Called again: nothing left to recover (their latest attempts succeeded).
      const again = await as(partner)
        .post(`${base(sub)}/recover`, { since })
        .expect(202);
      expect(again.body).toEqual({ events: 0 });
      // The sibling's failures are its own.
      expect(await recordsOf(sibling.id)).toHaveLength(6);
    });

    it('takes at most 10,000 events a call, oldest first', async () => {
      const sub = await createSubscription(t, { tenant: partner.tenant, url: 'https://127.0.0.1:1/refused' });
      await t.dataSource.query(
        `WITH events AS (
           INSERT INTO webhook_events (event_type, tenant, occurred_at, payload)
           SELECT 'LICENCE_CREATED_SUCCESS', $1, now(), '{}' FROM generate_series(1, 10005)
           RETURNING id
         )
         INSERT INTO webhook_deliveries (event_id, subscription_id, event_type, status, sent_at)
         SELECT id, $2, 'LICENCE_CREATED_SUCCESS', 'FAILED', now() - interval '1 hour' FROM events`,
        [sub.tenant, sub.id],
      );
      const since = new Date(Date.now() - 2 * 3600_000).toISOString();
      const res = await as(partner)
        .post(`${base(sub)}/recover`, { since })
        .expect(202);
      expect(res.body).toEqual({ events: 10_000 });
      // Each recovered event is pending or recorded (a job leaves the outbox with its record).
      const [{ n, newest }] = await t.dataSource.query(
        `SELECT count(DISTINCT event_id)::int AS n, max(event_id) AS newest FROM (
           SELECT event_id FROM webhook_jobs WHERE subscription_id = $1 AND trigger = 'RECOVER'
           UNION ALL
           SELECT event_id FROM webhook_deliveries WHERE subscription_id = $1 AND trigger = 'RECOVER'
         ) x`,
        [sub.id],
      );
      expect(n).toBe(10_000);
      const [{ fifthNewest }] = await t.dataSource.query(
        `SELECT event_id AS "fifthNewest" FROM webhook_deliveries
         WHERE subscription_id = $1 AND trigger = 'EVENT' ORDER BY event_id DESC OFFSET 5 LIMIT 1`,
        [sub.id],
      );
      expect(newest).toBe(fifthNewest);
      await as(partner).delete(base(sub)).expect(200); // drops what is still pending
    }, 60_000);

    it('checks its window and the subscription', async () => {
      const hook = await receiver({ status: 200 });
      const sub = await createSubscription(t, { tenant: partner.tenant, url: hook.url() });
      const path = `${base(sub)}/recover`;
      const now = Date.now();
      const day = 24 * 3600_000;
      const cases: Array<[object | undefined, string]> = [
        [{}, 'since'],
        [undefined, 'since'],
        [{ since: 'today' }, 'since'],
        [{ since: 12345 }, 'since'],
        [{ since: null }, 'since'],
        [{ since: new Date(now - 8 * day).toISOString() }, 'since'], // RETENTION_DAYS 7
        [{ since: '0000-01-01T00:00:00Z' }, 'since'],
        [{ since: '9999-12-31T23:59:59Z', until: '9999-12-31T23:59:59Z' }, 'until'],
        [{ since: ['2026-01-01T00:00:00Z'] }, 'since'],
        [{ since: new Date(now - day).toISOString(), until: 'later' }, 'until'],
        [{ since: new Date(now - day).toISOString(), until: null }, 'until'],
        [{ since: new Date(now - day).toISOString(), until: new Date(now - 2 * day).toISOString() }, 'until'],
        [{ since: new Date(now + day).toISOString() }, 'until'], // until defaults to now
        [{ since: new Date(now - day).toISOString(), extra: 1 }, 'extra'],
      ];
      for (const [body, field] of cases) {
        const req = as(partner).post(path);
        const res = await (body === undefined ? req : req.send(body));
        expect({ body, status: res.status }).toEqual({ body, status: 400 });
        expectErrorBody(res.body);
        expect(res.body.errors.map((e: { field: string }) => e.field)).toEqual([field]);
      }
      await as(partner).post(path).set('content-type', 'application/json').send('{"since":').expect(400);
      const since = new Date(now - 6 * day).toISOString();
      await as(partner).post(path, { since }).expect(202, { events: 0 });
      await as(partner)
        .post(path, { since, until: new Date(now + day).toISOString() })
        .expect(202, { events: 0 });
      await as(stranger).post(path, { since }).expect(404);
      await as(admin).post(path, { since }).expect(202);
      await as(client).post(path, { since }).expect(403);
      await t.http().post(path).send({ since }).expect(401);
      await as(partner).post('/webhooks/subscriptions/2147483648/recover', { since }).expect(404);
      await t.dataSource.query(`UPDATE subscriptions SET active = false WHERE id = $1`, [sub.id]);
      await as(partner).post(path, { since }).expect(409);
    });
  });

  describe('test event', () => {
    it('reaches only its subscription, recorded TEST, also when inactive', async () => {
      const hook = await receiver({ status: 200 });
      const tenant = partner.tenant;
      const target = await createSubscription(t, { tenant, url: hook.url('/target') });
      const neighbour = await createSubscription(t, { tenant, url: hook.url('/neighbour') });
      const idle = await createSubscription(t, { tenant, url: hook.url('/idle'), active: false });
      const scraper = `Bearer ${admin.token}`;
      const testsBefore = valueOf((await scrape(t, scraper)).families, 'webhook_deliveries_total', {
        outcome: 'SUCCESS',
        trigger: 'TEST',
      });

      const res = await as(partner)
        .post(`${base(target)}/test`)
        .expect(202);
      expect(res.body).toEqual({ eventId: expect.any(Number) });
      const [record] = await settled(target.id, 1);
      expect(record).toMatchObject({ eventId: String(res.body.eventId), trigger: 'TEST', status: 'SUCCESS' });
      const [receipt] = await hook.waitFor(1);
      expect(receipt.path).toBe('/target');
      expect(receipt.body).toMatchObject({
        eventType: 'LICENCE_CREATED_SUCCESS',
        tenant,
        licence: { code: expect.stringMatching(/^TEST-/) },
        error: null,
      });
      expect(receipt.headers['webhook-id']).toBe(String(res.body.eventId));
      expectSigned(target, [receipt]);

      const failed = await as(partner)
        .post(`${base(idle)}/test`, { eventType: 'LICENCE_CREATED_FAILED' })
        .expect(202);
      const [idleRecord] = await settled(idle.id, 1);
      expect(idleRecord).toMatchObject({ eventId: String(failed.body.eventId), trigger: 'TEST' });
      const idleReceipt = (await hook.waitFor(2)).find((r) => r.path === '/idle')!;
      expect(idleReceipt.body).toMatchObject({
        eventType: 'LICENCE_CREATED_FAILED',
        tenant,
        licence: null,
        error: { message: expect.any(String), type: 'TestEvent' },
      });
      expectSigned(idle, [idleReceipt]);

      // Nobody else: no job or record of either test event for the neighbour, now or by recovery.
      await as(partner)
        .post(`${base(neighbour)}/recover`, { since: new Date(Date.now() - 3600_000).toISOString() })
        .expect(202, { events: 0 });
      await sleep(300);
      expect(hook.receipts.map((r) => r.path).sort()).toEqual(['/idle', '/target']);
      expect(await recordsOf(neighbour.id)).toEqual([]);
      const testsAfter = valueOf((await scrape(t, scraper)).families, 'webhook_deliveries_total', {
        outcome: 'SUCCESS',
        trigger: 'TEST',
      });
      expect(testsAfter - testsBefore).toBe(2);

      // The detail shows the sample body sent.
      const detail = await as(partner)
        .get(`${base(target)}/deliveries/${record.id}`)
        .expect(200);
      expect(detail.body.payload).toEqual(receipt.body);
    });

    it('checks its input and the caller', async () => {
      const hook = await receiver({ status: 200 });
      const sub = await createSubscription(t, { tenant: partner.tenant, url: hook.url() });
      const path = `${base(sub)}/test`;
      for (const body of [
        { eventType: 'LICENCE_DELETED' },
        { eventType: null },
        { eventType: 1 },
        { x: 1 },
      ]) {
        const res = await as(partner).post(path, body);
        expect({ body, status: res.status }).toEqual({ body, status: 400 });
        expectErrorBody(res.body);
      }
      await as(partner).post(path).set('content-type', 'application/json').send('[1').expect(400);
      await as(partner).post(path).set('content-type', 'application/json').send('[]').expect(400);
      await as(stranger).post(path).expect(404);
      await as(client).post(path).expect(403);
      await t.http().post(path).expect(401);
      await as(partner).post('/webhooks/subscriptions/0/test').expect(400);
      await as(admin).post(path, {}).expect(202);
      await settled(sub.id, 1);
      expect(hook.receipts).toHaveLength(1);
    });
  });
});
