import { randomBytes, randomInt } from 'node:crypto';
import { createTestDatabase, dropTestDatabase } from './support/database';
import { buildService, ServiceProcess } from './support/service-process';
import { startTestApp, TestApp, TestUser } from './support/test-app';

/** A client address nobody else uses (TRUST_PROXY=true here; counters may be shared through Redis). */
const freshIp = () => `10.${randomInt(256)}.${randomInt(256)}.${1 + randomInt(254)}`;
/** Looks like one of our tokens, signed by nobody. */
const madeUpToken = () =>
  [
    Buffer.from('{"alg":"HS256","typ":"JWT"}').toString('base64url'),
    Buffer.from(JSON.stringify({ sub: 1, exp: 4_000_000_000 })).toString('base64url'),
    randomBytes(32).toString('base64url'),
  ].join('.');

/** Statuses of `count` requests sent one after the other, tallied: { 200: 3, 429: 1 }. */
async function tally(count: number, send: (i: number) => PromiseLike<{ status: number }>) {
  const seen: Record<number, number> = {};
  for (let i = 0; i < count; i++) {
    const { status } = await send(i);
    seen[status] = (seen[status] ?? 0) + 1;
  }
  return seen;
}

describe('Authorization header and rate-limit keys (contract section 8)', () => {
  let t: TestApp;
  let user: TestUser;

  beforeAll(async () => {
    // The contract's default API limit (100 a minute), so the counts below are the real ones.
    t = await startTestApp({ TRUST_PROXY: 'true', RATE_LIMIT_API_PER_MINUTE: '100' });
    user = await t.createUser();
  });
  afterAll(async () => {
    await t?.close();
  });

  const me = (authorization: string | undefined, ip = freshIp()) => {
    const req = t.http().get('/auth/me').set('x-forwarded-for', ip);
    return authorization === undefined ? req : req.set('authorization', authorization);
  };

  describe('accepts exactly "Bearer <token>"', () => {
    it('with one space and the token (the scheme is case-insensitive, RFC 7235)', async () => {
      for (const scheme of ['Bearer', 'bearer', 'BEARER']) {
        const res = await me(`${scheme} ${user.token}`).expect(200);
        expect(res.body.user).toBe(user.email);
      }
    });

    it.each<[string, (token: string) => string]>([
      ['trailing text', (token) => `Bearer ${token} x1`],
      ['a second token', (token) => `Bearer ${token},Bearer ${token}`],
      ['two spaces', (token) => `Bearer  ${token}`],
      ['a tab', (token) => `Bearer\t${token}`],
      ['no space', (token) => `Bearer${token}`],
      ['no scheme', (token) => token],
      ['another scheme', (token) => `Token ${token}`],
      ['Basic', () => `Basic ${Buffer.from('a:b').toString('base64')}`],
      ['the scheme alone', () => 'Bearer'],
      ['a quoted token', (token) => `Bearer "${token}"`],
      ['a character outside b64token', (token) => `Bearer ${token}!`],
      ['padding inside the token', (token) => `Bearer ${token.replace('.', '=.')}`],
      ['a suffix after the signature', (token) => `Bearer ${token}x`],
    ])('refuses %s with 401 and the error body', async (_name, header) => {
      const res = await me(header(user.token)).expect(401);
      expect(res.body).toMatchObject({ status: 401, error: 'Unauthorized', path: '/auth/me' });
    });

    it('refuses a request without the header with 401', async () => {
      await me(undefined).expect(401);
    });
  });

  it('limits 110 suffixed variants of one token from one client like one client: 100 refused, then 429', async () => {
    const ip = freshIp();
    const seen = await tally(110, (i) => me(`Bearer ${user.token} x${i + 1}`, ip));
    expect(seen).toEqual({ 401: 100, 429: 10 });
  });

  it('counts a token by its verified signature, whatever the header spelling and client address', async () => {
    const own = await t.createUser();
    const schemes = ['Bearer', 'bearer', 'BEARER'];
    const seen = await tally(110, (i) => me(`${schemes[i % 3]} ${own.token}`, freshIp()));
    expect(seen).toEqual({ 200: 100, 429: 10 });
    const limited = await me(`Bearer ${own.token}`);
    expect(limited.status).toBe(429);
    expect(Number(limited.headers['retry-after'])).toBeGreaterThanOrEqual(1);
    // Another user's token is another counter.
    await me(`Bearer ${user.token}`).expect(200);
  });

  it('answers a flood of made-up tokens from one client with 429 after 100, leaving other clients alone', async () => {
    const ip = freshIp();
    const seen = await tally(105, () => me(`Bearer ${madeUpToken()}`, ip));
    expect(seen).toEqual({ 401: 100, 429: 5 });
    const res = await me(`Bearer ${madeUpToken()}`, ip);
    expect(res.status).toBe(429);
    expect(res.headers['retry-after']).toMatch(/^\d+$/);
    // A valid token from that same address counts against the token, not the address.
    await me(`Bearer ${user.token}`, ip).expect(200);
    await me(`Bearer ${madeUpToken()}`, freshIp()).expect(401);
  });

  it('never limits the public routes, even for a client over its limit', async () => {
    const ip = freshIp();
    await tally(101, () => me(undefined, ip));
    expect((await me(undefined, ip)).status).toBe(429);
    for (const path of ['/health/live', '/health/ready', '/openapi.json', '/docs']) {
      for (let i = 0; i < 3; i++) {
        const res = await t
          .http()
          .get(path)
          .set('x-forwarded-for', ip)
          .set('authorization', 'Bearer made.up.x');
        expect([200, 301, 302]).toContain(res.status);
      }
    }
  });
});

describe('two instances with different secrets (separate processes: Passport has one registry per process)', () => {
  let t: TestApp;
  let other: ServiceProcess | undefined;
  let otherDatabase: { url: string; name: string } | undefined;
  let removeBuild: (() => Promise<void>) | undefined;
  const admin = { email: 'root@example.com', password: `pw-${randomBytes(8).toString('hex')}` };

  beforeAll(async () => {
    t = await startTestApp();
    otherDatabase = await createTestDatabase();
    const build = await buildService();
    removeBuild = build.remove;
    other = await ServiceProcess.start(build.main, {
      DATABASE_URL: otherDatabase.url,
      JWT_SECRET: randomBytes(32).toString('base64url'),
      SECRETS_KEY: randomBytes(32).toString('base64'),
      BOOTSTRAP_ADMIN_EMAIL: admin.email,
      BOOTSTRAP_ADMIN_PASSWORD: admin.password,
    });
  }, 180_000);
  afterAll(async () => {
    await other?.stop('SIGTERM');
    if (otherDatabase) await dropTestDatabase(otherDatabase.name);
    await removeBuild?.();
    await t?.close();
  });

  it('each checks tokens with its own secret and its own users', async () => {
    const mine = await t.createUser();
    const login = await fetch(`${other!.url}/auth/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(admin),
    });
    expect(login.status).toBe(200);
    const theirs = ((await login.json()) as { token: string }).token;
    const meOn = async (url: string, token: string) =>
      (await fetch(`${url}/auth/me`, { headers: { authorization: `Bearer ${token}` } })).status;
    expect(await meOn(t.url, mine.token)).toBe(200);
    expect(await meOn(other!.url, theirs)).toBe(200);
    expect(await meOn(t.url, theirs)).toBe(401);
    expect(await meOn(other!.url, mine.token)).toBe(401);
  });
});
