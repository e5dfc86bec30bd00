import { ChildProcess, spawn, spawnSync } from 'node:child_process';
import { randomBytes, randomInt } from 'node:crypto';
import http from 'node:http';
import Redis from 'ioredis';
import { UserRole } from '../src/common/reference/enums';
import { rateLimitKey, tokenTracker } from '../src/common/rate-limit/rate-limit.guard';
import { UsersService } from '../src/users/users.service';
import { LogCapture } from './support/log-capture';
import { redisForTests } from './support/redis';
import { freePort } from './support/service-process';
import { startTestApp, TestApp, uniq } from './support/test-app';

const HAL = 'application/hal+json;charset=UTF-8';
const redis = redisForTests();

const hasRedisServer = spawnSync('redis-server', ['--version'], { stdio: 'ignore' }).status === 0;

/** A Redis of this test's own (never the shared one), on a free port, so it can be stopped and restarted. */
class OwnRedis {
  private child: ChildProcess | undefined;
  private constructor(readonly port: number) {}

  get url(): string {
    return `redis://127.0.0.1:${this.port}`;
  }

  /** Every one started, so that afterAll stops those a timed-out test left behind. */
  static readonly started = new Set<OwnRedis>();

  static async start(): Promise<OwnRedis> {
    const redis = new OwnRedis(await freePort());
    OwnRedis.started.add(redis);
    await redis.restart();
    return redis;
  }

  /** Starts redis-server on this port (again) and waits until it answers. */
  async restart(): Promise<void> {
    this.child = spawn(
      'redis-server',
      ['--port', String(this.port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'],
      { stdio: 'ignore' },
    );
    const probe = new Redis(this.url, {
      lazyConnect: true,
      maxRetriesPerRequest: 0,
      retryStrategy: () => null,
    });
    probe.on('error', () => undefined);
    try {
      for (const deadline = Date.now() + 10_000; ; await sleep(50)) {
        if (
          await probe.connect().then(
            () => probe.ping(),
            () => undefined,
          )
        )
          return;
        if (Date.now() > deadline) throw new Error(`redis-server did not answer on port ${this.port}`);
      }
    } finally {
      probe.disconnect();
    }
  }

  signal(signal: NodeJS.Signals): void {
    this.child?.kill(signal);
  }

  async stop(): Promise<void> {
    const child = this.child;
    if (!child || child.exitCode !== null || child.signalCode !== null) return;
    const exited = new Promise((r) => child.once('exit', r));
    child.kill('SIGKILL');
    await exited;
  }
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** A client address nobody else uses in this run or the previous ones (shared Redis counters). */
const freshIp = () => `10.${randomInt(256)}.${randomInt(256)}.${1 + randomInt(254)}`;

interface Account {
  email: string;
  password: string;
  token: string;
}

/**
 * A user made through the service and logged in from its own address: the helper's createUser logs
 * in from 127.0.0.1, which would spend (and, with a shared Redis, block) the loopback's login count.
 */
async function account(t: TestApp, options: { admin?: boolean } = {}): Promise<Account & { id: number }> {
  const email = `${uniq('rl')}@example.com`;
  const password = `pw-${randomBytes(6).toString('hex')}`;
  const user = await t.app.get(UsersService).create({
    email,
    password,
    role: UserRole.ROLE_PARTNER,
    tenant: uniq('tenant'),
    partnerId: 1,
    partnerName: 'Rate',
    administrator: options.admin ?? false,
  });
  const res = await t
    .http()
    .post('/auth/login')
    .set('x-forwarded-for', freshIp())
    .send({ email, password })
    .expect(200);
  return { id: user.id, email, password, token: res.body.token };
}

function expect429(
  res: { status: number; headers: Record<string, string>; body: Record<string, unknown> },
  path: string,
) {
  expect(res.status).toBe(429);
  expect(res.headers['content-type']).toBe(HAL);
  expect(res.headers['retry-after']).toMatch(/^\d+$/);
  const seconds = Number(res.headers['retry-after']);
  expect(seconds).toBeGreaterThanOrEqual(1);
  expect(seconds).toBeLessThanOrEqual(60);
  expect(Object.keys(res.body).sort()).toEqual([
    'error',
    'message',
    'path',
    'requestId',
    'status',
    'timestamp',
  ]);
  expect(res.body).toMatchObject({ status: 429, error: 'Too Many Requests', path });
  expect(res.body.message).toMatch(/rate limit/i);
  expect(res.body.requestId).toBe(res.headers['x-request-id']);
}

describe('rate limits (spec, Limits; contract sections 1 and 4)', () => {
  describe('login: per client IP (TRUST_PROXY=true, 3 a minute)', () => {
    let t: TestApp;
    let user: Account;

    beforeAll(async () => {
      t = await startTestApp({
        TRUST_PROXY: 'true',
        RATE_LIMIT_LOGIN_PER_MINUTE: '3',
        RATE_LIMIT_API_PER_MINUTE: '1000',
      });
      user = await account(t);
    });
    afterAll(async () => {
      await t?.close();
    });

    const login = (ip: string, password = user.password, requestId?: string) => {
      const req = t.http().post('/auth/login').set('x-forwarded-for', ip);
      if (requestId) req.set('x-request-id', requestId);
      return req.send({ email: user.email, password });
    };

    it('answers the 4th attempt from one IP with 429, the error body and Retry-After in seconds', async () => {
      const ip = freshIp();
      // Failed attempts count like successful ones: the limit is there against password guessing.
      await login(ip).expect(200);
      await login(ip, 'wrong-password').expect(401);
      await login(ip, 'wrong-password').expect(401);
      const requestId = `rl-login-${randomBytes(4).toString('hex')}`;
      const res = await login(ip, user.password, requestId);
      expect429(res, '/auth/login');
      expect(res.headers['x-request-id']).toBe(requestId);
      // Still limited: the right password does not get through either.
      expect((await login(ip)).status).toBe(429);
    });

    it('leaves another IP unaffected', async () => {
      const busy = freshIp();
      for (let i = 0; i < 3; i++) await login(busy, 'wrong-password').expect(401);
      expect((await login(busy)).status).toBe(429);
      await login(freshIp()).expect(200);
      await login(freshIp(), 'wrong-password').expect(401);
    });

    it('takes the client IP from the leftmost X-Forwarded-For address when trusted', async () => {
      const client = freshIp();
      for (const proxy of ['192.0.2.1', '192.0.2.2', '192.0.2.3']) {
        await login(`${client}, ${proxy}`, 'wrong-password').expect(401);
      }
      expect((await login(`${client}, 192.0.2.9`)).status).toBe(429);
    });

    it('does not let a blocked IP stop the API for a token', async () => {
      const ip = freshIp();
      for (let i = 0; i < 3; i++) await login(ip, 'wrong-password').expect(401);
      expect((await login(ip)).status).toBe(429);
      await t
        .http()
        .get('/auth/me')
        .set('x-forwarded-for', ip)
        .set('authorization', `Bearer ${user.token}`)
        .expect(200);
    });
  });

  describe('login without TRUST_PROXY: X-Forwarded-For is not believed', () => {
    let t: TestApp;
    let user: Account;

    beforeAll(async () => {
      t = await startTestApp({
        TRUST_PROXY: 'false',
        RATE_LIMIT_LOGIN_PER_MINUTE: '3',
        RATE_LIMIT_API_PER_MINUTE: '1000',
      });
      // Logged in from a trusted-proxy-free address of its own, for the same reason as account().
      const email = `${uniq('rl')}@example.com`;
      const password = `pw-${randomBytes(6).toString('hex')}`;
      await t.app.get(UsersService).create({
        email,
        password,
        role: UserRole.ROLE_PARTNER,
        tenant: uniq('tenant'),
        partnerId: 1,
        partnerName: 'Rate',
      });
      user = { email, password, token: '' };
    });
    afterAll(async () => {
      await t?.close();
    });

    /** Sent from a loopback address of our choosing (127.0.0.0/8), which is then the client IP. */
    const loginFrom = (localAddress: string, forwardedFor: string, password: string) =>
      new Promise<number>((resolve, reject) => {
        const body = JSON.stringify({ email: user.email, password });
        const req = http.request(
          `${t.url}/auth/login`,
          {
            method: 'POST',
            localAddress,
            headers: {
              'content-type': 'application/json',
              'content-length': Buffer.byteLength(body),
              'x-forwarded-for': forwardedFor,
            },
          },
          (res) => {
            res.resume();
            res.on('end', () => resolve(res.statusCode ?? 0));
          },
        );
        req.on('error', reject);
        req.end(body);
      });
    const loopback = () => `127.${1 + randomInt(254)}.${randomInt(256)}.${1 + randomInt(254)}`;

    it('counts by the connection address, whatever X-Forwarded-For says', async () => {
      const source = loopback();
      const statuses = [];
      for (let i = 0; i < 4; i++) statuses.push(await loginFrom(source, freshIp(), 'wrong-password'));
      expect(statuses).toEqual([401, 401, 401, 429]);
      expect(await loginFrom(source, freshIp(), user.password)).toBe(429);
      // Another connection address is a different client.
      expect(await loginFrom(loopback(), freshIp(), user.password)).toBe(200);
    });
  });

  describe('API: per token (3 a minute)', () => {
    let t: TestApp;

    beforeAll(async () => {
      t = await startTestApp({
        TRUST_PROXY: 'true',
        RATE_LIMIT_LOGIN_PER_MINUTE: '1000',
        RATE_LIMIT_API_PER_MINUTE: '3',
      });
    });
    afterAll(async () => {
      await t?.close();
    });

    const get = (path: string, token?: string, ip = freshIp()) => {
      const req = t.http().get(path).set('x-forwarded-for', ip);
      if (token) req.set('authorization', `Bearer ${token}`);
      return req;
    };

    it('answers the 4th request of a token with 429, counting every endpoint together', async () => {
      const admin = await account(t, { admin: true });
      // Each from a different address: the token is what counts.
      await get('/auth/me', admin.token).expect(200);
      await get('/admin/users', admin.token).expect(200);
      await get(`/admin/users/${admin.id}`, admin.token).expect(200);
      const requestId = `rl-api-${randomBytes(4).toString('hex')}`;
      const res = await get('/auth/me', admin.token).set('x-request-id', requestId);
      expect429(res, '/auth/me');
      expect(res.headers['x-request-id']).toBe(requestId);
      expect429(await get('/admin/users?size=5', admin.token), '/admin/users');
    });

    it('counts two tokens of different users separately', async () => {
      const first = await account(t);
      const second = await account(t);
      for (let i = 0; i < 3; i++) await get('/auth/me', first.token).expect(200);
      expect429(await get('/auth/me', first.token), '/auth/me');
      for (let i = 0; i < 3; i++) await get('/auth/me', second.token).expect(200);
      expect429(await get('/auth/me', second.token), '/auth/me');
    });

    it('counts requests without a token by client IP', async () => {
      const ip = freshIp();
      for (let i = 0; i < 3; i++) await get('/auth/me', undefined, ip).expect(401);
      expect429(await get('/auth/me', undefined, ip), '/auth/me');
      await get('/auth/me', undefined, freshIp()).expect(401);
    });

    it('never limits /health/live and /health/ready, for a blocked token or IP alike', async () => {
      const user = await account(t);
      const ip = freshIp();
      for (let i = 0; i < 3; i++) await get('/auth/me', user.token, ip).expect(200);
      expect((await get('/auth/me', user.token, ip)).status).toBe(429);
      for (let i = 0; i < 3; i++) await get('/auth/me', undefined, ip).expect(401);
      expect((await get('/auth/me', undefined, ip)).status).toBe(429);
      for (let i = 0; i < 8; i++) {
        for (const path of ['/health/live', '/health/ready']) {
          const withToken = await get(path, user.token, ip).expect(200);
          expect(withToken.headers['retry-after']).toBeUndefined();
          expect(withToken.headers['content-type']).toBe(HAL);
          await get(path, undefined, ip).expect(200);
        }
      }
    });

    it('does not count logins against the API limit', async () => {
      const user = await account(t);
      const ip = freshIp();
      for (let i = 0; i < 5; i++) {
        await t
          .http()
          .post('/auth/login')
          .set('x-forwarded-for', ip)
          .send({ email: user.email, password: user.password })
          .expect(200);
      }
    });
  });

  describe('counters shared between instances', () => {
    it('keeps separate in-memory counts per instance when REDIS_URL is unset', async () => {
      const a = await startTestApp({ TRUST_PROXY: 'true', RATE_LIMIT_API_PER_MINUTE: '3', REDIS_URL: '' });
      const b = await startTestApp(
        { TRUST_PROXY: 'true', RATE_LIMIT_API_PER_MINUTE: '3', REDIS_URL: '', JWT_SECRET: a.env.JWT_SECRET },
        { databaseUrl: a.databaseUrl },
      );
      try {
        const user = await account(a);
        const me = (t: TestApp) =>
          t
            .http()
            .get('/auth/me')
            .set('x-forwarded-for', freshIp())
            .set('authorization', `Bearer ${user.token}`);
        for (let i = 0; i < 3; i++) await me(a).expect(200);
        for (let i = 0; i < 3; i++) await me(b).expect(200);
        expect((await me(a)).status).toBe(429);
        expect((await me(b)).status).toBe(429);
      } finally {
        await b.close();
        await a.close();
      }
    });

    const redisTest = redis ? it : it.skip;
    redisTest(
      redis
        ? `shares the per-token count between two instances through Redis (${redis.source})`
        : 'SKIPPED: shares the per-token count through Redis — no REDIS_URL and no Redis at 127.0.0.1:6379 (CI sets REDIS_URL)',
      async () => {
        const url = redis!.url;
        const a = await startTestApp({ TRUST_PROXY: 'true', RATE_LIMIT_API_PER_MINUTE: '3', REDIS_URL: url });
        const b = await startTestApp(
          {
            TRUST_PROXY: 'true',
            RATE_LIMIT_API_PER_MINUTE: '3',
            REDIS_URL: url,
            JWT_SECRET: a.env.JWT_SECRET,
          },
          { databaseUrl: a.databaseUrl },
        );
        const client = new Redis(url, { maxRetriesPerRequest: 2 });
        try {
          const user = await account(a);
          const other = await account(a);
          const me = (t: TestApp, token: string) =>
            t
              .http()
              .get('/auth/me')
              .set('x-forwarded-for', freshIp())
              .set('authorization', `Bearer ${token}`);
          await me(a, user.token).expect(200);
          await me(b, user.token).expect(200);
          await me(a, user.token).expect(200);
          // The 4th request of the token, on either instance, is over the shared limit.
          expect429(await me(b, user.token), '/auth/me');
          expect429(await me(a, user.token), '/auth/me');
          // Another token is counted on its own, on both.
          await me(b, other.token).expect(200);
          await me(a, other.token).expect(200);

          // The counters are in Redis, under the token's hash, never the token itself.
          const hitKey = `{${rateLimitKey('api', tokenTracker(user.token))}:api}:hits`;
          expect(Number(await client.get(hitKey))).toBe(5);
          const ttl = await client.pttl(hitKey);
          expect(ttl).toBeGreaterThan(0);
          expect(ttl).toBeLessThanOrEqual(60_000);
          expect(await client.exists(`{${rateLimitKey('api', tokenTracker(user.token))}:api}:blocked`)).toBe(
            1,
          );
          expect(
            Number(await client.get(`{${rateLimitKey('api', tokenTracker(other.token))}:api}:hits`)),
          ).toBe(2);
          const keys = await client.keys('*pis:api:*');
          expect(keys.some((k) => k.includes(user.token))).toBe(false);
        } finally {
          client.disconnect();
          await b.close();
          await a.close();
        }
      },
    );
  });

  describe('Redis unreachable: this instance counts in memory (contract section 1: never a 500, JSON logs)', () => {
    /** Whatever ioredis prints by itself (its "Unhandled error event" stack) goes through console.error. */
    let consoleError: jest.SpiedFunction<typeof console.error>;
    beforeEach(() => {
      consoleError = jest.spyOn(console, 'error');
    });
    afterEach(() => {
      consoleError.mockRestore();
    });
    afterAll(async () => {
      for (const redis of OwnRedis.started) await redis.stop();
    });
    const ioredisPrinted = () =>
      consoleError.mock.calls.filter((args) => args.some((a) => String(a).includes('ioredis')));

    /** Only the rate limiter's lines about Redis; records() fails on any line that is not JSON. */
    const redisLines = (capture: LogCapture) =>
      capture.records().filter((r) => r.context === 'RateLimit' && /Redis/.test(String(r.msg)));

    const limitedApp = (redisUrl: string, capture: LogCapture) =>
      startTestApp(
        {
          TRUST_PROXY: 'true',
          RATE_LIMIT_API_PER_MINUTE: '3',
          RATE_LIMIT_LOGIN_PER_MINUTE: '2',
          LOG_LEVEL: 'info',
          REDIS_URL: redisUrl,
        },
        { logDestination: capture },
      );

    const me = (t: TestApp, token: string) =>
      t.http().get('/auth/me').set('x-forwarded-for', freshIp()).set('authorization', `Bearer ${token}`);

    it('answers 200 then 429 with nothing listening at REDIS_URL, promptly, with one JSON warning and no password', async () => {
      const password = `redis-pw-${randomBytes(6).toString('hex')}`;
      const capture = new LogCapture();
      const t = await limitedApp(`redis://:${password}@127.0.0.1:${await freePort()}`, capture);
      try {
        const user = await account(t);
        const started = Date.now();
        for (let i = 0; i < 3; i++) await me(t, user.token).expect(200);
        expect429(await me(t, user.token), '/auth/me');
        // A request never waits for the dead Redis (no offline queue, no retries).
        expect(Date.now() - started).toBeLessThan(2_000);

        const ip = freshIp();
        const login = () =>
          t
            .http()
            .post('/auth/login')
            .set('x-forwarded-for', ip)
            .send({ email: user.email, password: 'wrong-password' });
        await login().expect(401);
        await login().expect(401);
        expect429(await login(), '/auth/login');

        // ioredis keeps reconnecting (every 50..2000 ms): one warning for the outage, not one per attempt.
        await sleep(1_500);
        expect429(await me(t, user.token), '/auth/me');
        const lines = redisLines(capture);
        expect(lines).toHaveLength(1);
        expect(lines[0]).toMatchObject({ level: 40 });
        expect(String(lines[0].msg)).toMatch(
          /^Redis at 127\.0\.0\.1:\d+ is unavailable \(.*ECONNREFUSED.*\)/,
        );
        expect(capture.text).not.toContain(password);
        expect(ioredisPrinted()).toEqual([]);
      } finally {
        await t.close();
      }
    });

    /** A test with a Redis of its own and an application counting in it; skipped, saying so, without redis-server. */
    const withOwnRedis = (
      name: string,
      body: (redis: OwnRedis, t: TestApp, capture: LogCapture) => Promise<void>,
    ) =>
      hasRedisServer
        ? it(name, async () => {
            const redis = await OwnRedis.start();
            try {
              const capture = new LogCapture();
              const t = await limitedApp(redis.url, capture);
              try {
                await body(redis, t, capture);
              } finally {
                await t.close();
              }
            } finally {
              await redis.stop();
            }
          })
        : it.skip(`SKIPPED: ${name} — no redis-server on PATH`, () => undefined);

    withOwnRedis(
      'falls back to memory when its Redis stops, and counts in Redis again once it is back',
      async (redis, t, capture) => {
        const client = new Redis(redis.url, { lazyConnect: true, maxRetriesPerRequest: 0 });
        client.on('error', () => undefined);
        const hits = async (token: string) => {
          await client.connect().catch(() => undefined);
          return Number(await client.get(`{${rateLimitKey('api', tokenTracker(token))}:api}:hits`));
        };
        try {
          const first = await account(t);
          await me(t, first.token).expect(200);
          expect(await hits(first.token)).toBe(1);
          client.disconnect();

          await redis.stop();
          // Counted afresh in this instance's memory: fail open per instance, then limited there.
          for (let i = 0; i < 3; i++) await me(t, first.token).expect(200);
          expect429(await me(t, first.token), '/auth/me');
          expect(redisLines(capture).map((r) => r.level)).toEqual([40]);

          await redis.restart();
          for (const deadline = Date.now() + 15_000; redisLines(capture).length < 2; await sleep(100)) {
            if (Date.now() > deadline) throw new Error('no "Redis is back" line within 15 s');
          }
          const second = await account(t);
          for (let i = 0; i < 3; i++) await me(t, second.token).expect(200);
          expect429(await me(t, second.token), '/auth/me');
          expect(await hits(second.token)).toBe(4);

          const lines = redisLines(capture);
          expect(lines.map((r) => r.level)).toEqual([40, 30]);
          expect(String(lines[1].msg)).toMatch(/^Redis at 127\.0\.0\.1:\d+ is back/);
          expect(ioredisPrinted()).toEqual([]);
        } finally {
          client.disconnect();
        }
      },
    );

    withOwnRedis(
      'holds a request back at most about half a second when its Redis stops answering',
      async (redis, t, capture) => {
        const user = await account(t);
        await me(t, user.token).expect(200);
        // Stopped, not gone: the connection stays open and commands go unanswered (SIGKILL ends it).
        redis.signal('SIGSTOP');
        const started = Date.now();
        await me(t, user.token).expect(200);
        await me(t, user.token).expect(200);
        expect(Date.now() - started).toBeLessThan(1_500);
        expect(redisLines(capture)).toHaveLength(1);
        expect(String(redisLines(capture)[0].msg)).toMatch(/unavailable \(Command timed out\)/);
      },
    );
  });
});
