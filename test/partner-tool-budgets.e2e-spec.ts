import type { Response } from 'supertest';
import { UserRole } from '../src/common/reference/enums';
import type { Subscription } from '../src/subscriptions/subscription.entity';
import { createSubscription, startDispatcherApp, waitForDeliveries } from './support/dispatcher';
import { Receiver } from './support/receiver';
import { redisForTests } from './support/redis';
import { testCa } from './support/test-ca';
import type { TestApp, TestUser } from './support/test-app';

/** Contract section 8's budgets, per subscription and minute. */
const BUDGETS = { RECOVER: 1, TEST: 10, RESEND: 60 };
const redis = redisForTests();

describe('Partner-tool budgets (contract section 8, Bulkheads and budgets)', () => {
  let t: TestApp;
  let hook: Receiver;
  /** Two partners of different tenants, and an administrator. */
  let partner: TestUser, stranger: TestUser, admin: TestUser;

  beforeAll(async () => {
    t = await startDispatcherApp({
      RATE_LIMIT_RECOVER_PER_MINUTE: String(BUDGETS.RECOVER),
      RATE_LIMIT_TEST_EVENTS_PER_MINUTE: String(BUDGETS.TEST),
      RATE_LIMIT_RESEND_PER_MINUTE: String(BUDGETS.RESEND),
    });
    [hook, partner, stranger, admin] = await Promise.all([
      Receiver.start(testCa().server, { status: 200 }),
      t.createUser({ role: UserRole.ROLE_PARTNER }),
      t.createUser({ role: UserRole.ROLE_PARTNER }),
      t.createUser({ admin: true }),
    ]);
  });
  afterAll(async () => {
    await Promise.all([hook?.close(), t?.close()]);
  });

  const post = (user: TestUser, path: string, body?: object) => {
    const req = t.http().post(path).set('authorization', `Bearer ${user.token}`);
    return body === undefined ? req : req.send(body);
  };
  const base = (sub: Subscription) => `/webhooks/subscriptions/${sub.id}`;
  const subscriptionOf = (user: TestUser) => createSubscription(t, { tenant: user.tenant, url: hook.url() });
  const since = () => new Date(Date.now() - 3600_000).toISOString();

  /** 429 with Retry-After (whole seconds, within the minute) and the contract's error body. */
  function expectBudgetSpent(res: Response, path: string): void {
    expect(res.status).toBe(429);
    expect(res.headers['retry-after']).toMatch(/^\d+$/);
    expect(Number(res.headers['retry-after'])).toBeGreaterThanOrEqual(1);
    expect(Number(res.headers['retry-after'])).toBeLessThanOrEqual(60);
    expect(res.headers['content-type']).toBe('application/hal+json;charset=UTF-8');
    expect(res.body).toEqual({
      timestamp: expect.any(String),
      status: 429,
      error: 'Too Many Requests',
      message: expect.stringContaining('a minute for this subscription'),
      path,
      requestId: res.headers['x-request-id'],
    });
  }

  it('recover: once a minute per subscription; refused requests use none of it and never reveal it', async () => {
    const sub = await subscriptionOf(partner);
    const sibling = await subscriptionOf(partner);
    const strangers = await subscriptionOf(stranger);
    const path = `${base(sub)}/recover`;

    // Neither another tenant's 404 nor a bad body's 400 spends the budget.
    for (let i = 0; i < 3; i++) await post(stranger, path, { since: since() }).expect(404);
    await post(partner, path, { since: 'yesterday' }).expect(400);

    await post(partner, path, { since: since() }).expect(202);
    expectBudgetSpent(await post(partner, path, { since: since() }), path);
    // The budget is the subscription's, whoever asks.
    expectBudgetSpent(await post(admin, path, { since: since() }), path);
    // Another tenant still gets its 404, not the 429 that would reveal the subscription.
    await post(stranger, path, { since: since() }).expect(404);

    // Each subscription has its own: a sibling of the same tenant, and another tenant's.
    await post(partner, `${base(sibling)}/recover`, { since: since() }).expect(202);
    await post(stranger, `${base(strangers)}/recover`, { since: since() }).expect(202);
  });

  it('test: 10 a minute per subscription', async () => {
    const sub = await subscriptionOf(partner);
    const sibling = await subscriptionOf(partner);
    const strangers = await subscriptionOf(stranger);
    const path = `${base(sub)}/test`;
    for (let i = 0; i < BUDGETS.TEST; i++) await post(partner, path).expect(202);
    expectBudgetSpent(await post(partner, path), path);
    await post(partner, `${base(sibling)}/test`).expect(202);
    await post(stranger, `${base(strangers)}/test`).expect(202);
  });

  it('resend: 60 a minute per subscription', async () => {
    const sub = await subscriptionOf(partner);
    const sibling = await subscriptionOf(partner);
    await post(partner, `${base(sub)}/test`).expect(202);
    await post(partner, `${base(sibling)}/test`).expect(202);
    const [record] = await waitForDeliveries(t.dataSource, sub.id, 1);
    const [siblingRecord] = await waitForDeliveries(t.dataSource, sibling.id, 1);
    const path = `${base(sub)}/deliveries/${record.id}/resend`;

    await post(stranger, path).expect(404);
    for (let i = 0; i < BUDGETS.RESEND; i++) await post(partner, path).expect(202);
    expectBudgetSpent(await post(partner, path), path);
    await post(partner, `${base(sibling)}/deliveries/${siblingRecord.id}/resend`).expect(202);
  }, 60_000);

  const redisTest = redis ? it : it.skip;
  redisTest(
    redis
      ? `recover: one budget for every instance through Redis (${redis.source})`
      : 'SKIPPED: recover budget shared through Redis — no REDIS_URL and no Redis at 127.0.0.1:6379',
    async () => {
      const shared = { RATE_LIMIT_RECOVER_PER_MINUTE: '1', REDIS_URL: redis!.url };
      const a = await startDispatcherApp(shared);
      const b = await startDispatcherApp(
        { ...shared, JWT_SECRET: a.env.JWT_SECRET, SECRETS_KEY: a.env.SECRETS_KEY },
        { databaseUrl: a.databaseUrl },
      );
      try {
        const user = await a.createUser({ role: UserRole.ROLE_PARTNER });
        const sub = await createSubscription(a, { tenant: user.tenant, url: hook.url() });
        const path = `${base(sub)}/recover`;
        const recover = (app: TestApp) =>
          app.http().post(path).set('authorization', `Bearer ${user.token}`).send({ since: since() });
        await recover(a).expect(202);
        expectBudgetSpent(await recover(b), path);
      } finally {
        await b.close();
        await a.close();
      }
    },
  );
});
