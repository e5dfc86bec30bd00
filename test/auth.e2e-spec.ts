import { createHmac } from 'node:crypto';
import { UserRole } from '../src/common/reference/enums';
import { startTestApp, TestApp, uniq } from './support/test-app';

const b64 = (value: object) => Buffer.from(JSON.stringify(value)).toString('base64url');
function signHs256(claims: object, secret: string): string {
  const head = b64({ alg: 'HS256', typ: 'JWT' });
  const body = b64(claims);
  const sig = createHmac('sha256', secret).update(`${head}.${body}`).digest('base64url');
  return `${head}.${body}.${sig}`;
}

describe('POST /auth/login and GET /auth/me', () => {
  let t: TestApp;

  beforeAll(async () => {
    t = await startTestApp();
  });
  afterAll(async () => {
    await t?.close();
  });

  it('logs in with e-mail and password and returns a 4-hour JWT', async () => {
    const user = await t.createUser();
    const res = await t
      .http()
      .post('/auth/login')
      .send({ email: user.email, password: user.password })
      .expect(200);
    expect(res.headers['content-type']).toBe('application/hal+json;charset=UTF-8');
    expect(Object.keys(res.body).sort()).toEqual(['expiresIn', 'token']);
    expect(res.body.expiresIn).toBe(14_400_000);
    const claims = JSON.parse(Buffer.from(res.body.token.split('.')[1], 'base64url').toString());
    expect(claims.exp - claims.iat).toBe(14_400);
    expect(claims).toMatchObject({ sub: user.id, tenant: user.tenant, role: 'ROLE_PARTNER', adm: false });
    expect(JSON.parse(Buffer.from(res.body.token.split('.')[0], 'base64url').toString()).alg).toBe('HS256');
  });

  it('matches the e-mail case-insensitively', async () => {
    const user = await t.createUser();
    await t
      .http()
      .post('/auth/login')
      .send({ email: user.email.toUpperCase(), password: user.password })
      .expect(200);
  });

  it('answers unknown e-mail, wrong password and disabled account with the same 401 body', async () => {
    const user = await t.createUser();
    const disabled = await t.createUser({ enabled: false });
    const attempts = [
      { email: `${uniq('nobody')}@example.com`, password: 'whatever-password' },
      { email: user.email, password: 'wrong-password' },
      { email: disabled.email, password: disabled.password },
    ];
    const bodies = [];
    for (const body of attempts) {
      const res = await t.http().post('/auth/login').send(body).expect(401);
      expect(res.headers['content-type']).toBe('application/hal+json;charset=UTF-8');
      const { timestamp: _t, requestId: _r, ...rest } = res.body;
      bodies.push(rest);
    }
    expect(bodies[0]).toEqual({
      status: 401,
      error: 'Unauthorized',
      message: 'Invalid e-mail or password',
      path: '/auth/login',
    });
    expect(bodies[1]).toEqual(bodies[0]);
    expect(bodies[2]).toEqual(bodies[0]);
  });

  it('spends about the same time on an unknown e-mail as on a wrong password', async () => {
    const user = await t.createUser();
    const time = async (email: string) => {
      const start = process.hrtime.bigint();
      await t.http().post('/auth/login').send({ email, password: 'wrong-password' }).expect(401);
      return Number(process.hrtime.bigint() - start) / 1e6;
    };
    await time(user.email); // warm-up
    const known: number[] = [];
    const unknown: number[] = [];
    for (let i = 0; i < 5; i++) {
      known.push(await time(user.email));
      unknown.push(await time(`${uniq('ghost')}@example.com`));
    }
    const median = (xs: number[]) => xs.sort((a, b) => a - b)[Math.floor(xs.length / 2)];
    // Both pay one argon2id verification (tens of ms); without the dummy hash the unknown e-mail
    // would answer in about a millisecond.
    expect(median(unknown)).toBeGreaterThan(median(known) * 0.4);
  });

  it.each([
    ['missing password', { email: 'a@example.com' }],
    ['missing email', { password: 'secret-password' }],
    ['empty object', {}],
    ['number email', { email: 42, password: 'x' }],
    ['null email', { email: null, password: 'x' }],
    ['array email', { email: ['a@example.com'], password: 'x' }],
    ['object password', { email: 'a@example.com', password: { $ne: 1 } }],
    ['10 kB email', { email: 'a'.repeat(10_240), password: 'x' }],
    ['unknown field', { email: 'a@example.com', password: 'x', admin: true }],
  ])('rejects a login body with %s with 400 and the error body', async (_name, body) => {
    const res = await t.http().post('/auth/login').send(body).expect(400);
    expect(res.body).toMatchObject({ status: 400, error: 'Bad Request', path: '/auth/login' });
    expect(Array.isArray(res.body.errors)).toBe(true);
    expect(res.body.errors.length).toBeGreaterThan(0);
    expect(JSON.stringify(res.body)).not.toMatch(/at .*\.(ts|js):\d+/);
  });

  it.each([
    ['a JSON array', '[1,2]', 'application/json'],
    ['JSON null', 'null', 'application/json'],
    ['a JSON string', '"hello"', 'application/json'],
    ['malformed JSON', '{"email":', 'application/json'],
    ['an empty body', '', 'application/json'],
    ['a text/plain body', 'email=a&password=b', 'text/plain'],
    ['a form body', 'email=a&password=b', 'application/x-www-form-urlencoded'],
  ])('rejects %s with a 4xx error body, never a 500', async (_name, payload, type) => {
    const res = await t.http().post('/auth/login').set('content-type', type).send(payload);
    expect(res.status).toBeGreaterThanOrEqual(400);
    expect(res.status).toBeLessThan(500);
    expect(res.headers['content-type']).toBe('application/hal+json;charset=UTF-8');
    expect(res.body).toMatchObject({ status: res.status, path: '/auth/login' });
    expect(typeof res.body.requestId).toBe('string');
  });

  it('rejects a login with no body at all with 400', async () => {
    const res = await t.http().post('/auth/login').expect(400);
    expect(res.body.errors.map((e: { field: string }) => e.field).sort()).toEqual(['email', 'password']);
  });

  it('stays up after the malformed bodies', async () => {
    await t.http().get('/health/live').expect(200);
  });

  it('returns the current user with the spec shape', async () => {
    const user = await t.createUser();
    const res = await t.http().get('/auth/me').set('authorization', `Bearer ${user.token}`).expect(200);
    expect(res.body).toEqual({
      user: user.email,
      isValidToken: true,
      isAdministrator: false,
      otherInformation: {
        hub: false,
        partnerName: `Partner ${user.tenant}`,
        userName: user.email,
        partnerId: 42,
      },
      role: '[[ROLE_PARTNER]]',
      _links: { self: { href: '/auth/me' } },
    });
  });

  it.each([
    [UserRole.ROLE_PARTNER, '[[ROLE_PARTNER]]'],
    [UserRole.ROLE_CLIENT, '[[ROLE_USER]]'],
    [UserRole.ROLE_BRANCH, '[[ROLE_BRANCH]]'],
  ])('renders %s as %s', async (role, rendered) => {
    const user = await t.createUser({ role });
    const res = await t.http().get('/auth/me').set('authorization', `Bearer ${user.token}`).expect(200);
    expect(res.body.role).toBe(rendered);
  });

  it('shows isAdministrator for administrators', async () => {
    const admin = await t.createUser({ admin: true });
    const res = await t.http().get('/auth/me').set('authorization', `Bearer ${admin.token}`).expect(200);
    expect(res.body.isAdministrator).toBe(true);
  });

  describe('rejects bad tokens with 401', () => {
    let user: { id: number; tenant: string; token: string };
    beforeAll(async () => {
      user = await t.createUser();
    });
    const now = () => Math.floor(Date.now() / 1000);
    const cases: Array<[string, () => string | undefined]> = [
      ['no Authorization header', () => undefined],
      ['a non-bearer scheme', () => `Basic ${Buffer.from('a:b').toString('base64')}`],
      ['garbage', () => 'Bearer not-a-jwt'],
      [
        'an expired token',
        () =>
          `Bearer ${signHs256({ sub: user.id, iat: now() - 20_000, exp: now() - 5_600 }, t.env.JWT_SECRET)}`,
      ],
      [
        'a token signed with another secret',
        () =>
          `Bearer ${signHs256({ sub: user.id, iat: now(), exp: now() + 600 }, 'another-secret-another-secret-another')}`,
      ],
      [
        'a tampered payload',
        () => {
          const [h, , s] = user.token.split('.');
          return `Bearer ${h}.${b64({ sub: user.id, tenant: 'other', role: 'ROLE_PARTNER', adm: true, iat: now(), exp: now() + 600 })}.${s}`;
        },
      ],
      [
        'alg: none',
        () =>
          `Bearer ${b64({ alg: 'none', typ: 'JWT' })}.${b64({ sub: user.id, iat: now(), exp: now() + 600 })}.`,
      ],
      [
        'a token of a deleted user',
        () => `Bearer ${signHs256({ sub: 999_999, iat: now(), exp: now() + 600 }, t.env.JWT_SECRET)}`,
      ],
    ];
    it.each(cases)('%s', async (_name, header) => {
      const req = t.http().get('/auth/me');
      const value = header();
      if (value) req.set('authorization', value);
      const res = await req.expect(401);
      expect(res.body).toMatchObject({ status: 401, error: 'Unauthorized', path: '/auth/me' });
      expect(res.headers['x-request-id']).toBeTruthy();
    });

    it('accepts a well-formed token signed with the right secret (control)', async () => {
      const token = signHs256({ sub: user.id, iat: now(), exp: now() + 600 }, t.env.JWT_SECRET);
      await t.http().get('/auth/me').set('authorization', `Bearer ${token}`).expect(200);
    });
  });

  it('answers 403 once the account is disabled, and 401 at login', async () => {
    const admin = await t.createUser({ admin: true });
    const user = await t.createUser();
    await t.http().get('/auth/me').set('authorization', `Bearer ${user.token}`).expect(200);
    await t
      .http()
      .patch(`/admin/users/${user.id}`)
      .set('authorization', `Bearer ${admin.token}`)
      .send({ enabled: false })
      .expect(200);
    const res = await t.http().get('/auth/me').set('authorization', `Bearer ${user.token}`).expect(403);
    expect(res.body).toMatchObject({ status: 403, error: 'Forbidden' });
    await t.http().post('/auth/login').send({ email: user.email, password: user.password }).expect(401);
  });
});
