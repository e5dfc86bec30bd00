import { UserRole } from '../src/common/reference/enums';
import { licence } from './support/dispatcher';
import { startTestApp, TestApp, TestUser, uniq } from './support/test-app';

const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
const error = { message: 'Plan has no seats left', type: 'PlanCapacityExceededException' };
const withLicence = (overrides: Record<string, unknown>, omit?: string) => {
  const l: Record<string, unknown> = { ...licence(), ...overrides };
  if (omit) delete l[omit];
  return { eventType: 'LICENCE_CREATED_SUCCESS', tenant: 'acme', licence: l };
};

describe('POST /admin/licence-events', () => {
  let t: TestApp;
  let admin: TestUser;

  beforeAll(async () => {
    t = await startTestApp();
    admin = await t.createUser({ admin: true });
  });
  afterAll(async () => {
    await t?.close();
  });

  const post = (body: unknown, token = admin.token) =>
    t
      .http()
      .post('/admin/licence-events')
      .set('authorization', `Bearer ${token}`)
      .send(body as object);

  it('answers 202 with the event id, type, tenant, timestamp and number of matched subscriptions', async () => {
    const tenant = uniq('tenant');
    const res = await post({ eventType: 'LICENCE_CREATED_SUCCESS', tenant, licence: licence(), error: null });
    expect(res.status).toBe(202);
    expect(res.headers['content-type']).toBe('application/hal+json;charset=UTF-8');
    expect(res.body).toEqual({
      eventId: expect.any(Number),
      eventType: 'LICENCE_CREATED_SUCCESS',
      tenant,
      timestamp: expect.stringMatching(ISO),
      matchedSubscriptions: 0,
    });
    expect(Math.abs(Date.parse(res.body.timestamp) - Date.now())).toBeLessThan(10_000);

    const failed = await post({ eventType: 'LICENCE_CREATED_FAILED', tenant, error, licence: null }).expect(
      202,
    );
    expect(failed.body).toMatchObject({
      eventType: 'LICENCE_CREATED_FAILED',
      tenant,
      matchedSubscriptions: 0,
    });
    expect(failed.body.eventId).toBeGreaterThan(res.body.eventId);
  });

  it('accepts a free licence (pricing 0) and an absent error on success', async () => {
    await post(withLicence({ pricing: 0 })).expect(202);
  });

  it('is for administrators only', async () => {
    await t.http().post('/admin/licence-events').send(withLicence({})).expect(401);
    for (const role of [UserRole.ROLE_PARTNER, UserRole.ROLE_CLIENT, UserRole.ROLE_BRANCH]) {
      const user = await t.createUser({ role });
      const res = await post(withLicence({}), user.token);
      expect({ role, status: res.status }).toEqual({ role, status: 403 });
    }
    const [{ n }] = await t.dataSource.query(
      `SELECT count(*)::int AS n FROM webhook_events WHERE tenant = 'acme'`,
    );
    expect(n).toBe(1); // only the administrator's free licence above
  });

  it.each<[string, unknown, string[]]>([
    ['an empty body', {}, ['eventType', 'tenant']],
    [
      'an unknown event type',
      { eventType: 'LICENCE_DELETED', tenant: 'acme', licence: licence() },
      ['eventType'],
    ],
    ['a missing licence on success', { eventType: 'LICENCE_CREATED_SUCCESS', tenant: 'acme' }, ['licence']],
    [
      'a null licence on success',
      { eventType: 'LICENCE_CREATED_SUCCESS', tenant: 'acme', licence: null },
      ['licence'],
    ],
    [
      'an array as licence',
      { eventType: 'LICENCE_CREATED_SUCCESS', tenant: 'acme', licence: [licence()] },
      ['licence'],
    ],
    ['an error object on success', { ...withLicence({}), error }, ['error']],
    ['a missing error on failure', { eventType: 'LICENCE_CREATED_FAILED', tenant: 'acme' }, ['error']],
    [
      'a licence on failure',
      { eventType: 'LICENCE_CREATED_FAILED', tenant: 'acme', error, licence: licence() },
      ['licence'],
    ],
    [
      'an error without message',
      { eventType: 'LICENCE_CREATED_FAILED', tenant: 'acme', error: { type: 'X' } },
      ['error.message'],
    ],
    [
      'an error with an empty type',
      { eventType: 'LICENCE_CREATED_FAILED', tenant: 'acme', error: { message: 'm', type: '' } },
      ['error.type'],
    ],
    ['an empty tenant', { ...withLicence({}), tenant: '' }, ['tenant']],
    ['a 256-character tenant', { ...withLicence({}), tenant: 'x'.repeat(256) }, ['tenant']],
    ['an unknown status', withLicence({ status: 'ACTIVE' }), ['licence.status']],
    ['a formatted phone number', withLicence({ phoneNumber: '(11) 98765-4321' }), ['licence.phoneNumber']],
    ['a bad e-mail', withLicence({ email: 'not-an-email' }), ['licence.email']],
    // isEmail takes these; JSON Schema's `email` format (what receivers validate with) does not.
    ['a non-ASCII e-mail', withLicence({ email: 'müller@example.com' }), ['licence.email']],
    ['a quoted e-mail', withLicence({ email: '"a b"@example.com' }), ['licence.email']],
    ['an empty code', withLicence({ code: '' }), ['licence.code']],
    ['a 256-character name', withLicence({ name: 'n'.repeat(256) }), ['licence.name']],
    // 255 letters and a variation selector: 256 characters (class-validator's length leaves it out).
    [
      'a 256-character name ending in U+FE0F',
      withLicence({ name: `${'n'.repeat(255)}\uFE0F` }),
      ['licence.name'],
    ],
    [
      'a 256-character code ending in U+FE0E',
      withLicence({ code: `${'c'.repeat(255)}\uFE0E` }),
      ['licence.code'],
    ],
    [
      'a 256-character tenant ending in U+FE0F',
      { ...withLicence({}), tenant: `${'x'.repeat(255)}\uFE0F` },
      ['tenant'],
    ],
    ['clientId 0', withLicence({ clientId: 0 }), ['licence.clientId']],
    ['a fractional planId', withLicence({ planId: 1.5 }), ['licence.planId']],
    ['a string clientId', withLicence({ clientId: '7' }), ['licence.clientId']],
    ['maxRedemptions -1', withLicence({ maxRedemptions: -1 }), ['licence.maxRedemptions']],
    ['a negative pricing', withLicence({ pricing: -0.01 }), ['licence.pricing']],
    ['a string pricing', withLicence({ pricing: '19.90' }), ['licence.pricing']],
    ['a licence without phoneNumber', withLicence({}, 'phoneNumber'), ['licence.phoneNumber']],
    ['an unknown licence field', withLicence({ cpf: '52998224725' }), ['licence.cpf']],
    ['an unknown top-level field', { ...withLicence({}), priority: 'high' }, ['priority']],
  ])('rejects %s with 400 naming the fields', async (_name, body, fields) => {
    const res = await post(body);
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ status: 400, error: 'Bad Request', path: '/admin/licence-events' });
    const named = (res.body.errors as Array<{ field: string }>).map((e) => e.field);
    expect(named.sort()).toEqual([...fields].sort());
  });

  it('says why a licence is refused on a failure event', async () => {
    const res = await post({
      eventType: 'LICENCE_CREATED_FAILED',
      tenant: 'acme',
      error,
      licence: licence(),
    }).expect(400);
    expect(res.body.errors).toEqual([
      {
        field: 'licence',
        message: 'licence must be null or absent when eventType is LICENCE_CREATED_FAILED',
      },
    ]);
    const missing = await post({ eventType: 'LICENCE_CREATED_SUCCESS', tenant: 'acme' }).expect(400);
    expect(missing.body.errors).toEqual([{ field: 'licence', message: 'licence is required' }]);
  });
});
