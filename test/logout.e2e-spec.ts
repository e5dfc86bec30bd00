import { startSecondInstance } from './support/second-instance';
import type { ServiceProcess } from './support/service-process';
import { startTestApp, TestApp, TestUser } from './support/test-app';

/** The user-check bound on both instances, and room for a loaded machine on top of it. */
const USER_CACHE_TTL_MS = 2_000;
const SLACK_MS = 3_000;

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * Logout (contract section 8): POST /auth/logout refuses that token from then on, at once on the
 * instance that handled it and within USER_CACHE_TTL_MS on another instance of the same database
 * (a child process: Passport keeps one strategy registry per process), while the user's other
 * tokens keep working.
 */
describe('POST /auth/logout (contract section 8)', () => {
  let t: TestApp;
  let other: ServiceProcess | undefined;
  let stopOther: (() => Promise<void>) | undefined;

  beforeAll(async () => {
    t = await startTestApp({ USER_CACHE_TTL_MS: String(USER_CACHE_TTL_MS) });
    ({ instance: other, stop: stopOther } = await startSecondInstance(t, USER_CACHE_TTL_MS));
  }, 180_000);
  afterAll(async () => {
    await stopOther?.();
    await t?.close();
  });

  const me = async (url: string, token: string) =>
    (await fetch(`${url}/auth/me`, { headers: { authorization: `Bearer ${token}` } })).status;
  const logout = async (url: string, token: string) =>
    (await fetch(`${url}/auth/logout`, { method: 'POST', headers: { authorization: `Bearer ${token}` } }))
      .status;
  /** A second token of the same user (another login). */
  const secondToken = async (user: TestUser) => {
    const res = await t
      .http()
      .post('/auth/login')
      .send({ email: user.email, password: user.password })
      .expect(200);
    expect(res.body.token).not.toBe(user.token);
    return res.body.token as string;
  };

  it("refuses the token at once on this instance; the same user's other token keeps working", async () => {
    const user = await t.createUser();
    const kept = await secondToken(user);
    expect(await me(t.url, user.token)).toBe(200);

    const res = await t.http().post('/auth/logout').set('authorization', `Bearer ${user.token}`);
    expect(res.status).toBe(204);
    expect(res.text).toBe('');
    expect(await me(t.url, user.token)).toBe(401);
    expect(await logout(t.url, user.token)).toBe(401);
    expect(await me(t.url, kept)).toBe(200);
  });

  it('refuses the token on another instance within the user-check bound', async () => {
    const user = await t.createUser();
    const kept = await secondToken(user);
    // The other instance has the user in its cache.
    expect(await me(other!.url, user.token)).toBe(200);

    expect(await logout(t.url, user.token)).toBe(204);
    const started = Date.now();
    for (;;) {
      const seen = await me(other!.url, user.token);
      if (seen === 401) break;
      expect(seen).toBe(200); // still the cached user, never anything else
      if (Date.now() - started > USER_CACHE_TTL_MS + SLACK_MS)
        throw new Error(`still ${seen} after the bound`);
      await sleep(100);
    }
    expect(await me(other!.url, kept)).toBe(200);
    // And it stays refused there once the cache has been read again.
    await sleep(USER_CACHE_TTL_MS + 200);
    expect(await me(other!.url, user.token)).toBe(401);
    expect(await me(other!.url, kept)).toBe(200);
  }, 30_000);

  it('answers a logout without a valid token 401', async () => {
    expect((await t.http().post('/auth/logout')).status).toBe(401);
    expect((await t.http().post('/auth/logout').set('authorization', 'Bearer made.up.token')).status).toBe(
      401,
    );
  });
});
