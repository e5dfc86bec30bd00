import { randomBytes, randomInt } from 'node:crypto';
import { startTestApp, TestApp, TestUser, uniq } from './support/test-app';

/**
 * Password guessing (contract section 8): 10 failed logins for one e-mail from one client in 15
 * minutes, or 100 from all clients in an hour, and further logins for it are 429 with Retry-After,
 * for known and unknown e-mails alike. Runs on Redis too when REDIS_URL is set.
 */
const freshIp = () => `10.${randomInt(256)}.${randomInt(256)}.${1 + randomInt(254)}`;
const HAL = 'application/hal+json;charset=UTF-8';

describe('login guessing limits (contract section 8)', () => {
  let t: TestApp;

  beforeAll(async () => {
    // The per-IP login limit out of the way (it has its own tests): only the guessing limits count.
    t = await startTestApp({ TRUST_PROXY: 'true', RATE_LIMIT_LOGIN_PER_MINUTE: '100000' });
  });
  afterAll(async () => {
    await t?.close();
  });

  const login = (email: string, password: string, ip: string) =>
    t.http().post('/auth/login').set('x-forwarded-for', ip).send({ email, password });

  /**
   * What an answer shows a client, without what differs on every answer (time, request id, and the
   * seconds to wait, which depend on when the window started).
   */
  const shown = (res: {
    status: number;
    headers: Record<string, string>;
    body: Record<string, unknown>;
  }) => ({
    status: res.status,
    contentType: res.headers['content-type'],
    retryAfter: res.headers['retry-after'] === undefined ? 'none' : 'seconds',
    body: {
      ...res.body,
      message: String(res.body.message).replace(/\d+/g, 'N'),
      timestamp: undefined,
      requestId: undefined,
    },
  });

  async function retryAfter(res: { status: number; headers: Record<string, string> }): Promise<number> {
    expect(res.status).toBe(429);
    expect(res.headers['content-type']).toBe(HAL);
    expect(res.headers['retry-after']).toMatch(/^\d+$/);
    return Number(res.headers['retry-after']);
  }

  describe('10 failures for one e-mail from one client in 15 minutes', () => {
    let known: TestUser;
    beforeAll(async () => {
      known = await t.createUser();
    });

    it('refuses further logins for that e-mail from that client, identically for known and unknown e-mails', async () => {
      const unknown = `${uniq('nobody')}@example.com`;
      const answers: Record<string, ReturnType<typeof shown>[]> = { known: [], unknown: [] };
      const waits: number[] = [];
      for (const [kind, email] of [
        ['known', known.email],
        ['unknown', unknown],
      ] as const) {
        const ip = freshIp();
        for (let i = 0; i < 10; i++) {
          const res = await login(email, `wrong-${i}`, ip);
          expect(res.status).toBe(401);
          answers[kind].push(shown(res));
        }
        // The 11th, even with the right password, is refused until the window passes.
        const refused = await login(email, kind === 'known' ? known.password : 'whatever', ip);
        waits.push(await retryAfter(refused));
        answers[kind].push(shown(refused));
        expect(refused.body).toMatchObject({ status: 429, error: 'Too Many Requests', path: '/auth/login' });
        expect((await login(email, 'again', ip)).status).toBe(429);
      }
      expect(answers.known).toEqual(answers.unknown);
      for (const wait of waits) {
        expect(wait).toBeGreaterThan(14 * 60);
        expect(wait).toBeLessThanOrEqual(15 * 60);
      }
    });

    it('leaves that e-mail open from another client, and other e-mails from that client', async () => {
      const ip = freshIp();
      for (let i = 0; i < 10; i++) await login(known.email, `wrong-${i}`, ip).expect(401);
      expect((await login(known.email, known.password, ip)).status).toBe(429);
      await login(known.email, known.password, freshIp()).expect(200);
      const other = await t.createUser();
      await login(other.email, other.password, ip).expect(200);
    });

    it('does not count successful logins', async () => {
      const user = await t.createUser();
      const ip = freshIp();
      for (let i = 0; i < 9; i++) await login(user.email, `wrong-${i}`, ip).expect(401);
      for (let i = 0; i < 5; i++) await login(user.email, user.password, ip).expect(200);
      // The 10th failure, then the limit.
      await login(user.email, 'wrong', ip).expect(401);
      expect((await login(user.email, user.password, ip)).status).toBe(429);
    });

    it('counts the e-mail as the login compares it (case-insensitively)', async () => {
      const user = await t.createUser();
      const ip = freshIp();
      for (let i = 0; i < 10; i++) {
        const email = i % 2 ? user.email.toUpperCase() : user.email;
        await login(email, `wrong-${i}`, ip).expect(401);
      }
      expect((await login(user.email, user.password, ip)).status).toBe(429);
    });
  });

  describe('100 failures for one e-mail from all clients in an hour', () => {
    it('refuses further logins for that e-mail from any client, identically for known and unknown e-mails', async () => {
      const user = await t.createUser();
      const unknown = `${uniq('nobody')}@example.com`;
      const answers: Record<string, ReturnType<typeof shown>> = {};
      for (const [kind, email, password] of [
        ['known', user.email, user.password],
        ['unknown', unknown, `pw-${randomBytes(4).toString('hex')}`],
      ] as const) {
        // 5 failures from each of 20 clients: none reaches the per-client limit.
        for (let client = 0; client < 20; client++) {
          const ip = freshIp();
          for (let i = 0; i < 5; i++) await login(email, `wrong-${i}`, ip).expect(401);
        }
        const refused = await login(email, password, freshIp());
        const wait = await retryAfter(refused);
        expect(wait).toBeGreaterThan(50 * 60);
        expect(wait).toBeLessThanOrEqual(60 * 60);
        answers[kind] = shown(refused);
        expect((await login(email, password, freshIp())).status).toBe(429);
      }
      expect(answers.known).toEqual(answers.unknown);
      // Another e-mail is not affected.
      const other = await t.createUser();
      await login(other.email, other.password, freshIp()).expect(200);
    }, 180_000);
  });
});
