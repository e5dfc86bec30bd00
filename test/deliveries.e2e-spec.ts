import { UserRole, WebhookEvent } from '../src/common/reference/enums';
import { Subscription } from '../src/subscriptions/subscription.entity';
import { createSubscription, licence, startDispatcherApp, waitForDeliveries } from './support/dispatcher';
import { Receiver } from './support/receiver';
import { testCa } from './support/test-ca';
import type { TestApp, TestUser } from './support/test-app';

const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

describe('GET /webhooks/subscriptions/{id}/deliveries', () => {
  let t: TestApp;
  let hook: Receiver;
  let partner: TestUser;
  let stranger: TestUser;
  let admin: TestUser;

  beforeAll(async () => {
    t = await startDispatcherApp();
    hook = await Receiver.start(testCa().server, { status: 200 });
    partner = await t.createUser({ role: UserRole.ROLE_PARTNER });
    stranger = await t.createUser({ role: UserRole.ROLE_PARTNER });
    admin = await t.createUser({ admin: true });
  });
  afterAll(async () => {
    await hook?.close();
    await t?.close();
  });

  const get = (path: string, token = partner.token) =>
    t.http().get(path).set('authorization', `Bearer ${token}`);

  /** `count` records for the subscription, straight into the table, one second apart (oldest first). */
  async function seedHistory(sub: Subscription, count: number): Promise<void> {
    const [event] = await t.dataSource.query(
      `INSERT INTO webhook_events (event_type, tenant, occurred_at, payload)
       VALUES ('LICENCE_CREATED_FAILED', $1, now(), '{}') RETURNING id`,
      [sub.tenant],
    );
    await t.dataSource.query(
      `INSERT INTO webhook_deliveries (event_id, subscription_id, event_type, status, http_status_code, error_message, sent_at)
       SELECT $1, $2, 'LICENCE_CREATED_FAILED', 'FAILED', 500, 'HTTP 500 Internal Server Error',
              -- pairs share a sentAt, so the id breaks the tie
              timestamptz '2026-01-01T00:00:00Z' + (i / 2) * interval '1 second'
       FROM generate_series(1, $3) AS i`,
      [event.id, sub.id, count],
    );
  }

  it('returns each attempt as a delivery record with HAL links', async () => {
    const sub = await createSubscription(t, { tenant: partner.tenant, url: hook.url(), name: 'Main hook' });
    await t
      .http()
      .post('/admin/licence-events')
      .set('authorization', `Bearer ${admin.token}`)
      .send({ eventType: WebhookEvent.LICENCE_CREATED_SUCCESS, tenant: partner.tenant, licence: licence() })
      .expect(202);
    await waitForDeliveries(t.dataSource, sub.id, 1);

    const res = await get(`/webhooks/subscriptions/${sub.id}/deliveries`).expect(200);
    expect(res.headers['content-type']).toBe('application/hal+json;charset=UTF-8');
    expect(res.body).toMatchObject({
      totalElements: 1,
      totalPages: 1,
      numberOfElements: 1,
      number: 0,
      size: 20,
      first: true,
      last: true,
      empty: false,
    });
    const [record] = res.body.content;
    expect(record).toEqual({
      id: expect.any(Number),
      eventId: expect.any(Number),
      subscriptionId: sub.id,
      subscriptionName: 'Main hook',
      eventType: 'LICENCE_CREATED_SUCCESS',
      status: 'SUCCESS',
      httpStatusCode: 200,
      errorMessage: null,
      trigger: 'EVENT',
      durationMs: expect.any(Number),
      responseBody: 'ok',
      sentAt: expect.stringMatching(ISO),
      createdAt: expect.stringMatching(ISO),
      _links: {
        self: { href: `/webhooks/subscriptions/${sub.id}/deliveries/${record.id}` },
        subscription: { href: `/webhooks/subscriptions/${sub.id}` },
        resend: { href: `/webhooks/subscriptions/${sub.id}/deliveries/${record.id}/resend` },
      },
    });
    expect(res.body._links.self.href).toBe(`/webhooks/subscriptions/${sub.id}/deliveries?size=20&page=0`);
    const self = await get(record._links.self.href).expect(200);
    expect(self.body).toEqual({ ...record, payload: hook.receipts.at(-1)!.body });
    await get(`/webhooks/subscriptions/${sub.id}/deliveries/${record.id + 1000}`).expect(404);
  });

  it('pages newest first (sentAt desc, then id desc)', async () => {
    const sub = await createSubscription(t, { tenant: partner.tenant, url: hook.url() });
    await seedHistory(sub, 25);
    const pages = [];
    for (const page of [0, 1, 2]) {
      const res = await get(`/webhooks/subscriptions/${sub.id}/deliveries?page=${page}&size=10`).expect(200);
      expect(res.body).toMatchObject({ totalElements: 25, totalPages: 3, number: page, size: 10 });
      pages.push(res.body);
    }
    expect(pages.map((p) => p.numberOfElements)).toEqual([10, 10, 5]);
    expect(pages.map((p) => [p.first, p.last])).toEqual([
      [true, false],
      [false, false],
      [false, true],
    ]);
    expect(pages[1]._links.next.href).toBe(`/webhooks/subscriptions/${sub.id}/deliveries?size=10&page=2`);
    expect(pages[1]._links.prev.href).toBe(`/webhooks/subscriptions/${sub.id}/deliveries?size=10&page=0`);
    const all = pages.flatMap((p) => p.content);
    expect(new Set(all.map((r: { id: number }) => r.id)).size).toBe(25);
    const expected = [...all].sort((a, b) => b.sentAt.localeCompare(a.sentAt) || b.id - a.id);
    expect(all.map((r: { id: number }) => r.id)).toEqual(expected.map((r) => r.id));
    expect(all[0].sentAt).toBe('2026-01-01T00:00:12.000Z');
    expect(all[0].id).toBeGreaterThan(all[1].id); // same sentAt as the next one
    expect(all[0].sentAt).toBe(all[1].sentAt);
    expect(all[0]).toMatchObject({
      status: 'FAILED',
      httpStatusCode: 500,
      errorMessage: 'HTTP 500 Internal Server Error',
    });

    const past = await get(`/webhooks/subscriptions/${sub.id}/deliveries?page=5&size=10`).expect(200);
    expect(past.body).toMatchObject({ content: [], empty: true, totalElements: 25 });
    for (const page of ['2147483648', '99999999999', '99999999999999999999']) {
      const far = await get(`/webhooks/subscriptions/${sub.id}/deliveries?page=${page}&size=10`).expect(200);
      expect(far.body).toMatchObject({
        content: [],
        empty: true,
        last: true,
        totalElements: 25,
        totalPages: 3,
      });
      expect(far.text).toContain(`"number":${page},`);
      expect(far.body._links.self.href).toBe(
        `/webhooks/subscriptions/${sub.id}/deliveries?size=10&page=${page}`,
      );
      expect(far.body._links.prev.href).toBe(`/webhooks/subscriptions/${sub.id}/deliveries?size=10&page=2`);
    }
    const defaults = await get(`/webhooks/subscriptions/${sub.id}/deliveries`).expect(200);
    expect(defaults.body).toMatchObject({ size: 20, numberOfElements: 20, totalPages: 2 });
  });

  describe('sort', () => {
    interface Row {
      id: number;
      status: string;
      httpStatusCode: number | null;
      eventType: string;
      sentAt: string;
      createdAt: string;
    }
    type Field = 'id' | 'sentAt' | 'createdAt' | 'status' | 'httpStatusCode' | 'eventType';
    let sub: Subscription;
    let rows: Row[];
    const path = () => `/webhooks/subscriptions/${sub.id}/deliveries`;
    const ids = (content: Row[]) => content.map((r) => r.id);

    beforeAll(async () => {
      sub = await createSubscription(t, { tenant: partner.tenant, url: hook.url() });
      const [event] = await t.dataSource.query(
        `INSERT INTO webhook_events (event_type, tenant, occurred_at, payload)
         VALUES ('LICENCE_CREATED_FAILED', $1, now(), '{}') RETURNING id`,
        [sub.tenant],
      );
      // Inserted out of sentAt order; pairs share a sentAt, one statement gives every row the same
      // createdAt, and two rows have no httpStatusCode: every tie-break and null shows.
      await t.dataSource.query(
        `INSERT INTO webhook_deliveries (event_id, subscription_id, event_type, status, http_status_code, sent_at)
         SELECT $1, $2, v.event_type, v.status, v.code, timestamptz '2026-02-01T00:00:00Z' + v.s * interval '1 second'
         FROM (VALUES
           ('LICENCE_CREATED_SUCCESS', 'SUCCESS', 200, 4),
           ('LICENCE_CREATED_FAILED', 'FAILED', 500, 1),
           ('LICENCE_CREATED_FAILED', 'FAILED', NULL, 1),
           ('LICENCE_CREATED_FAILED', 'SUCCESS', 204, 3),
           ('LICENCE_CREATED_SUCCESS', 'FAILED', 404, 2),
           ('LICENCE_CREATED_SUCCESS', 'FAILED', NULL, 5),
           ('LICENCE_CREATED_SUCCESS', 'SUCCESS', 200, 0),
           ('LICENCE_CREATED_FAILED', 'FAILED', 503, 2)
         ) AS v(event_type, status, code, s)`,
        [event.id, sub.id],
      );
      rows = (await get(`${path()}?size=100`).expect(200)).body.content;
      expect(rows).toHaveLength(8);
    });

    /** PostgreSQL's order: nulls above every value (last ascending, first descending). */
    const by = (field: Field, direction: 'asc' | 'desc') => (a: Row, b: Row) => {
      const av = a[field];
      const bv = b[field];
      const c = av === bv ? 0 : av === null ? 1 : bv === null ? -1 : av < bv ? -1 : 1;
      return direction === 'asc' ? c : -c;
    };
    /** The service's tie-break: sentAt newest first unless sorted on, then id in sentAt's direction. */
    const expected = (...orders: Array<[Field, 'asc' | 'desc']>) => {
      const all = [...orders];
      if (!all.some(([f]) => f === 'id')) {
        let sentAt = all.find(([f]) => f === 'sentAt');
        if (!sentAt) all.push((sentAt = ['sentAt', 'desc']));
        all.push(['id', sentAt[1]]);
      }
      return ids(
        [...rows].sort((a, b) => {
          for (const [field, direction] of all) {
            const c = by(field, direction)(a, b);
            if (c !== 0) return c;
          }
          return 0;
        }),
      );
    };

    it('keeps newest first (sentAt desc, id desc) without sort', () => {
      expect(ids(rows)).toEqual(expected(['sentAt', 'desc'], ['id', 'desc']));
    });

    it.each([
      ['id', 'asc'],
      ['id', 'desc'],
      ['sentAt', 'asc'],
      ['sentAt', 'desc'],
      ['createdAt', 'asc'],
      ['createdAt', 'desc'],
      ['status', 'asc'],
      ['status', 'desc'],
      ['httpStatusCode', 'asc'],
      ['httpStatusCode', 'desc'],
      ['eventType', 'asc'],
      ['eventType', 'desc'],
    ] as Array<[Field, 'asc' | 'desc']>)('sorts by %s %s', async (field, direction) => {
      const res = await get(`${path()}?sort=${field},${direction}`).expect(200);
      expect(ids(res.body.content)).toEqual(expected([field, direction]));
      expect(res.body._links.self.href).toBe(`${path()}?sort=${field}%2C${direction}&size=20&page=0`);
      if (direction === 'asc') {
        const bare = await get(`${path()}?sort=${field}`).expect(200);
        expect(ids(bare.body.content)).toEqual(ids(res.body.content));
      }
    });

    it('applies several sort parameters in order', async () => {
      const res = await get(`${path()}?sort=status&sort=httpStatusCode,desc`).expect(200);
      expect(ids(res.body.content)).toEqual(expected(['status', 'asc'], ['httpStatusCode', 'desc']));
      expect(ids(res.body.content)).not.toEqual(expected(['status', 'asc']));
    });

    it('pages through a sorted history without gaps or repeats, keeping sort in the links', async () => {
      const seen: number[] = [];
      for (let page = 0; page < 3; page++) {
        const res = await get(`${path()}?sort=eventType,desc&size=3&page=${page}`).expect(200);
        expect(res.body).toMatchObject({ totalElements: 8, totalPages: 3, number: page });
        for (const rel of Object.keys(res.body._links)) {
          expect(res.body._links[rel].href).toContain('sort=eventType%2Cdesc&size=3&page=');
        }
        seen.push(...ids(res.body.content));
      }
      expect(seen).toEqual(expected(['eventType', 'desc']));
    });

    it.each([
      'subscriptionId',
      'subscriptionName',
      'errorMessage',
      'sent_at',
      'event_id',
      'name',
      'status,up',
      'id,asc,extra',
      'id;DROP TABLE webhook_deliveries',
      '',
    ])('rejects sort=%p with 400 naming sort', async (sort) => {
      const res = await get(`${path()}?sort=${encodeURIComponent(sort)}`).expect(400);
      expect(res.body).toMatchObject({ status: 400, path: expect.stringContaining(path()) });
      expect(res.body.errors.map((e: { field: string }) => e.field)).toEqual(['sort']);
    });
  });

  it("answers 404 for an unknown subscription and for another tenant's, which administrators see", async () => {
    const foreign = await createSubscription(t, { tenant: stranger.tenant, url: hook.url() });
    await seedHistory(foreign, 3);
    const unknown = await get('/webhooks/subscriptions/2147483647/deliveries').expect(404);
    expect(unknown.body).toMatchObject({ status: 404, message: 'Subscription not found' });
    const hidden = await get(`/webhooks/subscriptions/${foreign.id}/deliveries`).expect(404);
    expect(hidden.body.message).toBe('Subscription not found');
    await get(`/webhooks/subscriptions/${foreign.id}/deliveries`, stranger.token).expect(200);
    const seen = await get(`/webhooks/subscriptions/${foreign.id}/deliveries`, admin.token).expect(200);
    expect(seen.body.totalElements).toBe(3);
  });

  it.each(['2147483648', '99999999999999999999', '0002147483648'])(
    'answers subscription id %s, past the integer range, with the 404 of an unknown subscription',
    async (id) => {
      for (const path of [
        `/webhooks/subscriptions/${id}/deliveries`,
        `/webhooks/subscriptions/${id}/deliveries/1`,
      ]) {
        for (const token of [partner.token, admin.token]) {
          const res = await get(path, token).expect(404);
          expect(res.headers['content-type']).toBe('application/hal+json;charset=UTF-8');
          expect(res.body).toEqual({
            timestamp: expect.stringMatching(ISO),
            status: 404,
            error: 'Not Found',
            message: 'Subscription not found',
            path,
            requestId: res.headers['x-request-id'],
          });
        }
      }
    },
  );

  it('answers 401 without a valid token and 403 to roles other than ROLE_PARTNER', async () => {
    const sub = await createSubscription(t, { tenant: partner.tenant, url: hook.url() });
    await t.http().get(`/webhooks/subscriptions/${sub.id}/deliveries`).expect(401);
    await get(`/webhooks/subscriptions/${sub.id}/deliveries`, 'not-a-token').expect(401);
    for (const role of [UserRole.ROLE_CLIENT, UserRole.ROLE_BRANCH]) {
      const user = await t.createUser({ role, tenant: partner.tenant });
      const res = await get(`/webhooks/subscriptions/${sub.id}/deliveries`, user.token);
      expect({ role, status: res.status }).toEqual({ role, status: 403 });
    }
  });

  it.each([
    ['a non-numeric id', '/webhooks/subscriptions/abc/deliveries', 'id'],
    ['id 0', '/webhooks/subscriptions/0/deliveries', 'id'],
    ['an id in exponent notation', '/webhooks/subscriptions/1e3/deliveries', 'id'],
    ['a negative page', '/webhooks/subscriptions/1/deliveries?page=-1', 'page'],
    ['size 0', '/webhooks/subscriptions/1/deliveries?size=0', 'size'],
    ['size 101', '/webhooks/subscriptions/1/deliveries?size=101', 'size'],
    ['an unknown parameter', '/webhooks/subscriptions/1/deliveries?outcome=FAILED', 'outcome'],
    ['a bad delivery id', '/webhooks/subscriptions/1/deliveries/x1', 'deliveryId'],
  ])('answers 400 for %s', async (_name, path, field) => {
    const res = await get(path).expect(400);
    expect(res.body.errors.map((e: { field: string }) => e.field)).toEqual([field]);
  });

  it('loses the history with its subscription', async () => {
    const sub = await createSubscription(t, { tenant: partner.tenant, url: hook.url() });
    await seedHistory(sub, 4);
    await get(`/webhooks/subscriptions/${sub.id}/deliveries`).expect(200);
    await t.dataSource.getRepository(Subscription).delete(sub.id);
    await get(`/webhooks/subscriptions/${sub.id}/deliveries`).expect(404);
    const [{ n }] = await t.dataSource.query(
      `SELECT count(*)::int AS n FROM webhook_deliveries WHERE subscription_id = $1`,
      [sub.id],
    );
    expect(n).toBe(0);
  });
});
