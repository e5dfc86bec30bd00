import { randomBytes } from 'node:crypto';
import { WebhookEvent } from '../src/common/reference/enums';
import { createSubscription, licence, startDispatcherApp, waitForDeliveries } from './support/dispatcher';
import { histogramCount, scrape, samples, valueOf } from './support/metrics';
import { Receiver } from './support/receiver';
import { testCa } from './support/test-ca';
import { startTestApp, TestApp, TestUser, uniq } from './support/test-app';

const HAL = 'application/hal+json;charset=UTF-8';
const METRICS_TOKEN = `scrape-${randomBytes(16).toString('base64url')}`;
/** Low, so a route that is rate limited trips it within a test. */
const API_PER_MINUTE = 5;

const bearer = (token: string) => `Bearer ${token}`;

describe('GET /metrics (contract section 9, Metrics)', () => {
  let t: TestApp;
  let scraper: TestUser;
  const receivers: Receiver[] = [];

  /** Publishes with a new administrator's token each time: the API limit is low here. */
  const publish = async (tenant: string) => {
    const publisher = await t.createUser({ admin: true });
    await t
      .http()
      .post('/admin/licence-events')
      .set('authorization', bearer(publisher.token))
      .send({ eventType: WebhookEvent.LICENCE_CREATED_SUCCESS, tenant, licence: licence() })
      .expect(202);
  };

  beforeAll(async () => {
    t = await startDispatcherApp({
      METRICS_TOKEN,
      RATE_LIMIT_API_PER_MINUTE: String(API_PER_MINUTE),
      WEBHOOK_TIMEOUT_MS: '3000',
    });
    scraper = await t.createUser({ admin: true });
  });
  afterAll(async () => {
    for (const r of receivers) await r.close();
    await t?.close();
  });

  it('serves every metric family in the Prometheus text format', async () => {
    const { families } = await scrape(t, bearer(METRICS_TOKEN));
    const types = Object.fromEntries(families.map((f) => [f.name, f.type]));
    expect(types).toMatchObject({
      webhook_deliveries_total: 'COUNTER',
      webhook_delivery_duration_seconds: 'HISTOGRAM',
      webhook_publish_to_attempt_seconds: 'HISTOGRAM',
      webhook_jobs_pending: 'GAUGE',
      webhook_jobs_oldest_pending_age_seconds: 'GAUGE',
      http_requests_total: 'COUNTER',
      http_rate_limit_refusals_total: 'COUNTER',
      db_pool_connections: 'GAUGE',
      db_pool_idle_connections: 'GAUGE',
      db_pool_waiting_clients: 'GAUGE',
      // Node's default process metrics.
      process_cpu_seconds_total: 'COUNTER',
      process_resident_memory_bytes: 'GAUGE',
      nodejs_eventloop_lag_seconds: 'GAUGE',
      nodejs_heap_size_used_bytes: 'GAUGE',
    });
    // Every outcome and trigger is there from the start.
    expect(
      samples(families, 'webhook_deliveries_total')
        .map((s) => `${s.labels?.outcome} ${s.labels?.trigger}`)
        .sort(),
    ).toEqual(
      ['SUCCESS', 'FAILED']
        .flatMap((o) => ['EVENT', 'RESEND', 'RECOVER', 'TEST'].map((tr) => `${o} ${tr}`))
        .sort(),
    );
    // The pool serves this request's user check: at least one connection is open.
    expect(valueOf(families, 'db_pool_connections')).toBeGreaterThanOrEqual(1);
    expect(samples(families, 'db_pool_waiting_clients')).toHaveLength(1);
  });

  it('counts delivered events by outcome and trigger, with their duration and publish-to-attempt latency', async () => {
    const ok = await Receiver.start(testCa().server, { status: 200 });
    const broken = await Receiver.start(testCa().server, { status: 500 });
    receivers.push(ok, broken);
    const okTenant = uniq('tenant');
    const brokenTenant = uniq('tenant');
    const okSub = await createSubscription(t, { tenant: okTenant, url: ok.url() });
    const brokenSub = await createSubscription(t, { tenant: brokenTenant, url: broken.url() });
    const before = await scrape(t, bearer(METRICS_TOKEN));

    await publish(okTenant);
    await publish(okTenant);
    await publish(brokenTenant);
    await waitForDeliveries(t.dataSource, okSub.id, 2);
    await waitForDeliveries(t.dataSource, brokenSub.id, 1);
    const after = await scrape(t, bearer(METRICS_TOKEN));

    const delta = (outcome: string) =>
      valueOf(after.families, 'webhook_deliveries_total', { outcome, trigger: 'EVENT' }) -
      valueOf(before.families, 'webhook_deliveries_total', { outcome, trigger: 'EVENT' });
    expect({ success: delta('SUCCESS'), failed: delta('FAILED') }).toEqual({ success: 2, failed: 1 });
    const durations = (text: string, outcome: string) =>
      histogramCount(text, 'webhook_delivery_duration_seconds', { outcome });
    expect(durations(after.text, 'SUCCESS') - durations(before.text, 'SUCCESS')).toBe(2);
    expect(durations(after.text, 'FAILED') - durations(before.text, 'FAILED')).toBe(1);
    const latencies = (text: string) =>
      histogramCount(text, 'webhook_publish_to_attempt_seconds', { trigger: 'EVENT' });
    expect(latencies(after.text) - latencies(before.text)).toBe(3);
    expect(valueOf(after.families, 'webhook_jobs_pending')).toBe(0);
    expect(valueOf(after.families, 'webhook_jobs_oldest_pending_age_seconds')).toBe(0);
  });

  it('reports pending jobs and the age of the oldest, read at each scrape', async () => {
    const hanging = await Receiver.start(testCa().server, { hang: true });
    receivers.push(hanging);
    const tenant = uniq('tenant');
    await createSubscription(t, { tenant, url: hanging.url() });
    await publish(tenant);
    await hanging.waitFor(1);
    // Backdated, so the age is certain without waiting for it.
    await t.dataSource.query(
      `UPDATE webhook_jobs SET created_at = now() - interval '90 seconds'
       WHERE subscription_id IN (SELECT id FROM subscriptions WHERE tenant = $1)`,
      [tenant],
    );
    const { families } = await scrape(t, bearer(METRICS_TOKEN));
    expect(valueOf(families, 'webhook_jobs_pending')).toBe(1);
    expect(valueOf(families, 'webhook_jobs_oldest_pending_age_seconds')).toBeGreaterThanOrEqual(90);
  });

  it('counts HTTP requests by route pattern and status, and rate-limit refusals; no tenant, URL or e-mail in a label', async () => {
    const partner = await t.createUser();
    const before = await scrape(t, bearer(METRICS_TOKEN));
    const missingId = 987654;
    await t
      .http()
      .get(`/webhooks/subscriptions/${missingId}`)
      .set('authorization', bearer(partner.token))
      .expect(404);
    await t.http().get(`/no/such/route/${partner.tenant}`).expect(404);
    // The partner's own limit: the request after API_PER_MINUTE is refused.
    let refused = 0;
    for (let i = 0; i < API_PER_MINUTE + 1; i++) {
      const res = await t.http().get('/auth/me').set('authorization', bearer(partner.token));
      if (res.status === 429) refused++;
    }
    expect(refused).toBeGreaterThanOrEqual(1);

    const { families, text } = await scrape(t, bearer(METRICS_TOKEN));
    const delta = (name: string, labels: Record<string, string>) =>
      valueOf(families, name, labels) - valueOf(before.families, name, labels);
    expect(
      delta('http_requests_total', { method: 'GET', route: '/webhooks/subscriptions/:id', status: '404' }),
    ).toBe(1);
    expect(delta('http_requests_total', { method: 'GET', route: 'unmatched', status: '404' })).toBe(1);
    expect(delta('http_requests_total', { method: 'GET', route: '/auth/me', status: '429' })).toBe(refused);
    expect(delta('http_requests_total', { method: 'GET', route: '/auth/me', status: '200' })).toBe(
      API_PER_MINUTE + 1 - refused,
    );
    expect(delta('http_rate_limit_refusals_total', { route: '/auth/me' })).toBe(refused);

    // Labels: route patterns, never raw URLs, tenants or e-mails of anything this file did.
    const values = families.flatMap((f) => f.metrics.flatMap((m) => Object.values(m.labels ?? {})));
    expect(values.length).toBeGreaterThan(0);
    for (const value of values) {
      expect(value).not.toMatch(/tenant-|@|example\.com|https?:|127\.0\.0\.1/);
      expect(value).not.toContain(String(missingId));
    }
    for (const secret of [partner.email, partner.tenant, scraper.email, METRICS_TOKEN, partner.token]) {
      expect(text).not.toContain(secret);
    }
  });

  describe('who may read it', () => {
    const expectRefused = async (authorization: string | undefined) => {
      const req = t.http().get('/metrics');
      const res = await (authorization === undefined ? req : req.set('authorization', authorization));
      expect([authorization, res.status]).toEqual([authorization, 401]);
      expect(res.headers['content-type']).toBe(HAL);
      expect(res.body).toEqual({
        timestamp: expect.any(String),
        status: 401,
        error: 'Unauthorized',
        message: expect.any(String),
        path: '/metrics',
        requestId: res.headers['x-request-id'],
      });
    };

    it("accepts an administrator's token and the METRICS_TOKEN", async () => {
      await scrape(t, bearer(scraper.token));
      await scrape(t, bearer(METRICS_TOKEN));
    });

    it('refuses everything else with 401 and the error body: partners, no token, near misses', async () => {
      const partner = await t.createUser();
      const disabledAdmin = await t.createUser({ admin: true, enabled: false });
      for (const authorization of [
        undefined,
        bearer(partner.token),
        bearer(disabledAdmin.token),
        METRICS_TOKEN,
        `Bearer  ${METRICS_TOKEN}`,
        `Bearer ${METRICS_TOKEN}x`,
        `Bearer ${METRICS_TOKEN.slice(0, -1)}`,
        `bearer ${METRICS_TOKEN}`,
        `Basic ${METRICS_TOKEN}`,
        bearer(`${scraper.token}x`),
      ]) {
        await expectRefused(authorization);
      }
    });

    it('is never rate limited, whichever token reads it', async () => {
      for (let i = 0; i < 3 * API_PER_MINUTE; i++) {
        await scrape(t, bearer(scraper.token));
        await scrape(t, bearer(METRICS_TOKEN));
      }
      // The same administrator's token is limited elsewhere.
      const statuses: number[] = [];
      for (let i = 0; i < API_PER_MINUTE + 1; i++) {
        statuses.push((await t.http().get('/auth/me').set('authorization', bearer(scraper.token))).status);
      }
      expect(statuses).toContain(429);
    });
  });

  it('keeps one registry per application: a second app counts on its own and has no scraper token', async () => {
    const live = { method: 'GET', route: '/health/live', status: '200' };
    await t.http().get('/health/live').expect(200);
    const other = await startTestApp();
    try {
      const admin = await other.createUser({ admin: true });
      const { families } = await scrape(other, bearer(admin.token));
      // The first app's request is not counted here, nor anything this app did not do.
      expect(valueOf(families, 'http_requests_total', live)).toBe(0);
      expect(
        valueOf(families, 'http_requests_total', { method: 'POST', route: '/auth/login', status: '200' }),
      ).toBe(1);
      const res = await other.http().get('/metrics').set('authorization', bearer(METRICS_TOKEN));
      expect(res.status).toBe(401);
      const first = await scrape(t, bearer(METRICS_TOKEN));
      expect(valueOf(first.families, 'http_requests_total', live)).toBeGreaterThanOrEqual(1);
    } finally {
      await other.close();
    }
  });
});
