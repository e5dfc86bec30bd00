import { randomBytes } from 'node:crypto';
import { buildService, ServiceProcess } from './support/service-process';
import { startTestApp, TestApp, TestUser } from './support/test-app';

/** The user-check bound on both instances (contract section 8: refused within it on every instance). */
const USER_CACHE_TTL_MS = 2_000;
/** Room for a loaded machine on top of the bound: the test fails only past bound + slack. */
const SLACK_MS = 3_000;

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * Revocation (contract section 8): a password, enabled, role or administrator change refuses every
 * token issued to the user before it, at once on the instance that made the change and within
 * USER_CACHE_TTL_MS on another instance of the same database. The other instance is a child
 * process (Passport keeps one strategy registry per process).
 */
describe('token revocation (contract section 8)', () => {
  let t: TestApp;
  let other: ServiceProcess | undefined;
  let removeBuild: (() => Promise<void>) | undefined;
  let admin: TestUser;

  beforeAll(async () => {
    t = await startTestApp({ USER_CACHE_TTL_MS: String(USER_CACHE_TTL_MS) });
    const build = await buildService();
    removeBuild = build.remove;
    other = await ServiceProcess.start(build.main, {
      DATABASE_URL: t.databaseUrl,
      JWT_SECRET: t.env.JWT_SECRET,
      SECRETS_KEY: t.env.SECRETS_KEY,
      USER_CACHE_TTL_MS: String(USER_CACHE_TTL_MS),
      RATE_LIMIT_API_PER_MINUTE: '100000',
      RATE_LIMIT_LOGIN_PER_MINUTE: '100000',
      DB_MIGRATE_ON_START: 'false',
    });
    admin = await t.createUser({ admin: true });
  }, 180_000);
  afterAll(async () => {
    await other?.stop('SIGTERM');
    await removeBuild?.();
    await t?.close();
  });

  const here = () => t.url;
  const there = () => other!.url;

  const me = async (url: string, token: string) =>
    (await fetch(`${url}/auth/me`, { headers: { authorization: `Bearer ${token}` } })).status;
  const patch = async (url: string, id: number, body: object) => {
    const res = await fetch(`${url}/admin/users/${id}`, {
      method: 'PATCH',
      headers: { authorization: `Bearer ${admin.token}`, 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    expect(res.status).toBe(200);
  };
  const login = async (url: string, email: string, password: string) => {
    const res = await fetch(`${url}/auth/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ email, password }),
    });
    return { status: res.status, token: ((await res.json()) as { token?: string }).token ?? '' };
  };

  /** Polls until the token gets `status`; how long that took (ms), or fails past the bound. */
  async function refusedWithin(url: string, token: string, status: number, meanwhile = 200): Promise<number> {
    const started = Date.now();
    for (;;) {
      const seen = await me(url, token);
      if (seen === status) return Date.now() - started;
      expect(seen).toBe(meanwhile); // still the cached user, never anything else
      if (Date.now() - started > USER_CACHE_TTL_MS + SLACK_MS) {
        throw new Error(`still ${seen} after ${Date.now() - started} ms, expected ${status}`);
      }
      await sleep(100);
    }
  }

  type Change = { body: object; refusal: number; undo?: object };
  const changes: [string, Change][] = [
    ['password', { body: { password: `new-${randomBytes(6).toString('hex')}` }, refusal: 401 }],
    ['enabled', { body: { enabled: false }, refusal: 403, undo: { enabled: true } }],
    ['role', { body: { role: 'ROLE_BRANCH' }, refusal: 401 }],
    ['administrator', { body: { administrator: true }, refusal: 401 }],
  ];

  for (const [field, change] of changes) {
    for (const [where, changedOn, elsewhere] of [
      ['this instance', here, there],
      ['the other instance', there, here],
    ] as const) {
      it(`changing ${field} on ${where}: old tokens refused at once there, within the bound on the other`, async () => {
        const user = await t.createUser();
        const before = user.token;
        // Both instances have the user in their cache.
        expect(await me(changedOn(), before)).toBe(200);
        expect(await me(elsewhere(), before)).toBe(200);

        await patch(changedOn(), user.id, change.body);
        expect(await me(changedOn(), before)).toBe(change.refusal);
        await refusedWithin(elsewhere(), before, change.refusal);

        const password = 'password' in change.body ? (change.body.password as string) : user.password;
        if (change.undo) {
          // Disabled: no login; enabled again, the tokens from before the change stay refused.
          expect((await login(changedOn(), user.email, password)).status).toBe(401);
          await patch(changedOn(), user.id, change.undo);
          await refusedWithin(elsewhere(), before, 401, 403);
          expect(await me(changedOn(), before)).toBe(401);
        }
        // A token issued right after the change (the same second) is good on both instances at once.
        const after = await login(changedOn(), user.email, password);
        expect(after.status).toBe(200);
        expect(await me(changedOn(), after.token)).toBe(200);
        expect(await me(elsewhere(), after.token)).toBe(200);
        // And the old one stays refused.
        await sleep(USER_CACHE_TTL_MS + 200);
        expect(await me(changedOn(), before)).toBe(change.undo ? 401 : change.refusal);
        expect(await me(elsewhere(), before)).toBe(change.undo ? 401 : change.refusal);
      }, 60_000);
    }
  }

  it('leaves tokens alone on changes that do not touch credentials or rights', async () => {
    const user = await t.createUser();
    await patch(here(), user.id, { partnerName: 'Renamed', userName: 'New Name', hub: true });
    expect(await me(here(), user.token)).toBe(200);
    await sleep(USER_CACHE_TTL_MS + 200);
    expect(await me(there(), user.token)).toBe(200);
  });
});
