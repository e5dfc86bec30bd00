import { randomBytes } from 'node:crypto';
import { UserRole } from '../src/common/reference/enums';
import { startTestApp, TestApp, TestUser, uniq } from './support/test-app';

const HAL = 'application/hal+json;charset=UTF-8';
const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
const USER_KEYS = [
  '_links',
  'createdAt',
  'email',
  'enabled',
  'hub',
  'id',
  'isAdministrator',
  'partnerId',
  'partnerName',
  'role',
  'tenant',
  'updatedAt',
  'userName',
];

/** Variation selectors, which class-validator's @MaxLength does not count and PostgreSQL does. */
const VS15 = '\uFE0E';
const VS16 = '\uFE0F';

/** Bad values of the text fields POST and PATCH share: [field named, body overrides]. */
const BAD_TEXT: Array<[string, Record<string, unknown>]> = [
  // 256 characters as PostgreSQL counts them; @MaxLength left variation selectors out.
  ['password', { password: `${'p'.repeat(255)}${VS16}` }],
  ['password', { password: `${'p'.repeat(6)}${VS16}` }],
  ['partnerName', { partnerName: `${'n'.repeat(255)}${VS16}` }],
  ['userName', { userName: `${'u'.repeat(254)}${VS15}${VS16}` }],
  // PostgreSQL refuses NUL in text (22021); other control characters as in subscription names.
  ['partnerName', { partnerName: 'a\u0000b' }],
  ['userName', { userName: 'a\u0000b' }],
  ['partnerName', { partnerName: 'a\u007fb' }],
  ['userName', { userName: 'a\u0085b' }],
  ['userName', { userName: 'a\tb' }],
];

const bearer = (user: { token: string }) => `Bearer ${user.token}`;
const fields = (body: { errors?: Array<{ field: string }> }) =>
  (body.errors ?? []).map((e) => e.field).sort();

describe('/admin/users (contract section 2)', () => {
  let t: TestApp;
  let admin: TestUser;
  let partner: TestUser;

  const validBody = (overrides: Record<string, unknown> = {}) => ({
    email: `${uniq('new')}@example.com`,
    password: `pw-${randomBytes(6).toString('hex')}`,
    role: 'ROLE_PARTNER',
    tenant: uniq('tenant'),
    partnerId: 7,
    partnerName: 'Acme',
    ...overrides,
  });

  const create = async (overrides: Record<string, unknown> = {}) => {
    const body = validBody(overrides);
    const res = await t
      .http()
      .post('/admin/users')
      .set('authorization', bearer(admin))
      .send(body)
      .expect(201);
    return {
      body,
      user: res.body as { id: number; email: string; tenant: string } & Record<string, unknown>,
    };
  };

  const login = (email: string, password: string) => t.http().post('/auth/login').send({ email, password });

  beforeAll(async () => {
    t = await startTestApp();
    admin = await t.createUser({ admin: true });
    partner = await t.createUser();
  });
  afterAll(async () => {
    await t?.close();
  });

  describe('POST /admin/users', () => {
    it('creates a user: 201 with the user, never the password or its hash', async () => {
      const body = validBody({ userName: 'Ops Person', hub: true, administrator: false });
      const res = await t
        .http()
        .post('/admin/users')
        .set('authorization', bearer(admin))
        .send(body)
        .expect(201);
      expect(res.headers['content-type']).toBe(HAL);
      expect(Object.keys(res.body).sort()).toEqual(USER_KEYS);
      expect(res.body).toMatchObject({
        email: body.email,
        role: 'ROLE_PARTNER',
        isAdministrator: false,
        hub: true,
        tenant: body.tenant,
        partnerId: 7,
        partnerName: 'Acme',
        userName: 'Ops Person',
        enabled: true,
      });
      expect(Number.isInteger(res.body.id)).toBe(true);
      expect(res.body.createdAt).toMatch(ISO);
      expect(res.body.updatedAt).toMatch(ISO);
      expect(res.body._links).toEqual({ self: { href: `/admin/users/${res.body.id}` } });
      expect(res.text).not.toContain(body.password);
      expect(res.text.toLowerCase()).not.toContain('password');
      expect(res.text).not.toContain('$argon2');
      // The stored hash is argon2id, never the password itself.
      const [row] = await t.dataSource.query('SELECT password_hash FROM users WHERE id = $1', [res.body.id]);
      expect(row.password_hash).toMatch(/^\$argon2id\$/);
      expect(row.password_hash).not.toContain(body.password);
      // The new user can log in.
      await login(body.email, body.password).expect(200);
    });

    it('defaults userName to the e-mail, hub and administrator to false', async () => {
      const { body, user } = await create();
      expect(user).toMatchObject({ userName: body.email, hub: false, isAdministrator: false, enabled: true });
    });

    it('accepts 255 characters as PostgreSQL counts them (emoji and variation selectors too)', async () => {
      const long = {
        password: `${'p'.repeat(254)}${VS16}`,
        tenant: '🚀'.repeat(255),
        partnerName: `${'n'.repeat(254)}${VS16}`,
        userName: `${'✔'.repeat(127)}${VS16.repeat(128)}`,
      };
      const { body, user } = await create(long);
      expect(user).toMatchObject({
        tenant: long.tenant,
        partnerName: long.partnerName,
        userName: long.userName,
      });
      const [row] = await t.dataSource.query(
        'SELECT tenant, partner_name, user_name FROM users WHERE id = $1',
        [user.id],
      );
      expect(row).toEqual({ tenant: long.tenant, partner_name: long.partnerName, user_name: long.userName });
      await login(body.email, long.password).expect(200);
    });

    it('creates an administrator whose token passes admin-only routes', async () => {
      const { body } = await create({ administrator: true, role: 'ROLE_BRANCH' });
      const token = (await login(body.email, body.password).expect(200)).body.token as string;
      const me = await t.http().get('/auth/me').set('authorization', `Bearer ${token}`).expect(200);
      expect(me.body).toMatchObject({ isAdministrator: true, role: '[[ROLE_BRANCH]]' });
      await t.http().get('/admin/users').set('authorization', `Bearer ${token}`).expect(200);
    });

    it.each(Object.values(UserRole))('accepts role %s', async (role) => {
      const { user } = await create({ role });
      expect(user.role).toBe(role);
    });

    it('answers 409 when the e-mail exists, in any case', async () => {
      const { body } = await create();
      for (const email of [body.email, body.email.toUpperCase(), body.email.replace(/^n/, 'N')]) {
        const res = await t
          .http()
          .post('/admin/users')
          .set('authorization', bearer(admin))
          .send(validBody({ email }))
          .expect(409);
        expect(res.headers['content-type']).toBe(HAL);
        expect(res.body).toMatchObject({ status: 409, error: 'Conflict', path: '/admin/users' });
        expect(res.body.errors).toBeUndefined();
      }
      const [{ count }] = await t.dataSource.query(
        'SELECT count(*)::int AS count FROM users WHERE lower(email) = $1',
        [body.email.toLowerCase()],
      );
      expect(count).toBe(1);
    });

    it.each([
      ['email', { email: undefined }],
      ['password', { password: undefined }],
      ['role', { role: undefined }],
      ['tenant', { tenant: undefined }],
      ['partnerId', { partnerId: undefined }],
      ['partnerName', { partnerName: undefined }],
    ])('answers 400 naming %s when it is missing', async (field, overrides) => {
      const res = await t
        .http()
        .post('/admin/users')
        .set('authorization', bearer(admin))
        .send(validBody(overrides))
        .expect(400);
      expect(res.body).toMatchObject({ status: 400, error: 'Bad Request', path: '/admin/users' });
      expect(fields(res.body)).toEqual([field]);
      expect(res.body.errors[0].message).toBe(`${field} is required`);
    });

    it.each([
      ['email', { email: 'not-an-email' }],
      ['email', { email: `${'a'.repeat(250)}@example.com` }],
      ['email', { email: 42 }],
      ['password', { password: 'short-7' }],
      ['password', { password: 'p'.repeat(256) }],
      ['password', { password: 12345678 }],
      ['role', { role: 'ROLE_ADMIN' }],
      ['role', { role: 'ROLE_USER' }],
      ['tenant', { tenant: '' }],
      ['tenant', { tenant: 't'.repeat(256) }],
      ['partnerId', { partnerId: 0 }],
      ['partnerId', { partnerId: -3 }],
      ['partnerId', { partnerId: 1.5 }],
      ['partnerId', { partnerId: '7' }],
      ['partnerId', { partnerId: 2_147_483_648 }],
      ['partnerName', { partnerName: '' }],
      ['partnerName', { partnerName: 'n'.repeat(256) }],
      ['userName', { userName: 'u'.repeat(256) }],
      ['userName', { userName: '' }],
      ...BAD_TEXT,
      ['tenant', { tenant: `${'t'.repeat(255)}${VS16}` }],
      ['tenant', { tenant: 'a\u0000b' }],
      ['tenant', { tenant: 'a\nb' }],
      ['email', { email: 'a\u0000b@example.com' }],
      ['administrator', { administrator: 'true' }],
      ['hub', { hub: 1 }],
      ['isAdministrator', { isAdministrator: true }],
      ['enabled', { enabled: false }],
      ['foo', { foo: 'bar' }],
    ])('answers 400 naming %s for %j', async (field, overrides) => {
      const res = await t
        .http()
        .post('/admin/users')
        .set('authorization', bearer(admin))
        .send(validBody(overrides))
        .expect(400);
      expect(res.headers['content-type']).toBe(HAL);
      expect(fields(res.body)).toEqual([field]);
      expect(res.body.message).toContain(field);
    });

    it('ignores the read-only fields of a user: id, createdAt, updatedAt, _links', async () => {
      const readOnly = {
        id: admin.id,
        createdAt: '2000-01-01T00:00:00.000Z',
        updatedAt: '2000-01-01T00:00:00.000Z',
        _links: { self: { href: `/admin/users/${admin.id}` } },
      };
      const before = await t
        .http()
        .get(`/admin/users/${admin.id}`)
        .set('authorization', bearer(admin))
        .expect(200);
      const { body, user } = await create(readOnly);
      expect(user.id).not.toBe(admin.id);
      expect(user).toMatchObject({
        email: body.email,
        _links: { self: { href: `/admin/users/${user.id}` } },
      });
      expect(new Date(user.createdAt as string).getFullYear()).toBeGreaterThan(2000);
      expect(new Date(user.updatedAt as string).getFullYear()).toBeGreaterThan(2000);
      const after = await t
        .http()
        .get(`/admin/users/${admin.id}`)
        .set('authorization', bearer(admin))
        .expect(200);
      expect(after.body).toEqual(before.body);
    });

    it('names every bad field at once, unknown ones included', async () => {
      const res = await t
        .http()
        .post('/admin/users')
        .set('authorization', bearer(admin))
        .send({
          email: 'x',
          password: 'short',
          role: 'nope',
          tenant: 'a',
          partnerId: 1,
          partnerName: 'b',
          extra: 1,
        })
        .expect(400);
      expect(fields(res.body)).toEqual(['email', 'extra', 'password', 'role']);
      const extra = res.body.errors.find((e: { field: string }) => e.field === 'extra');
      expect(extra.message).toBe('extra is not a known field');
    });

    it('never echoes the rejected password in a validation error', async () => {
      const res = await t
        .http()
        .post('/admin/users')
        .set('authorization', bearer(admin))
        .send(validBody({ password: 'Short7!' }))
        .expect(400);
      expect(res.text).not.toContain('Short7!');
    });

    it('answers 401 without a token and 403 to a non-administrator, creating nothing', async () => {
      const body = validBody();
      const anon = await t.http().post('/admin/users').send(body).expect(401);
      expect(anon.body).toMatchObject({ status: 401, error: 'Unauthorized', path: '/admin/users' });
      const res = await t
        .http()
        .post('/admin/users')
        .set('authorization', bearer(partner))
        .send(body)
        .expect(403);
      expect(res.headers['content-type']).toBe(HAL);
      expect(res.body).toMatchObject({ status: 403, error: 'Forbidden', path: '/admin/users' });
      const rows = await t.dataSource.query('SELECT 1 FROM users WHERE email = $1', [body.email]);
      expect(rows).toHaveLength(0);
    });

    it.each([UserRole.ROLE_CLIENT, UserRole.ROLE_BRANCH])(
      'answers 403 to a %s non-administrator',
      async (role) => {
        const user = await t.createUser({ role });
        await t.http().post('/admin/users').set('authorization', bearer(user)).send(validBody()).expect(403);
        await t.http().get('/admin/users').set('authorization', bearer(user)).expect(403);
      },
    );
  });

  describe('GET /admin/users/{id}', () => {
    it('returns the user', async () => {
      const { user } = await create({ role: 'ROLE_CLIENT' });
      const res = await t
        .http()
        .get(`/admin/users/${user.id}`)
        .set('authorization', bearer(admin))
        .expect(200);
      expect(res.headers['content-type']).toBe(HAL);
      expect(res.body).toEqual(user);
      expect(res.text.toLowerCase()).not.toContain('password');
    });

    it('answers 404 for an unknown id, with the error body', async () => {
      const res = await t
        .http()
        .get('/admin/users/2147483647')
        .set('authorization', bearer(admin))
        .expect(404);
      expect(res.headers['content-type']).toBe(HAL);
      expect(res.body).toEqual({
        timestamp: expect.stringMatching(ISO),
        status: 404,
        error: 'Not Found',
        message: 'User 2147483647 not found',
        path: '/admin/users/2147483647',
        requestId: res.headers['x-request-id'],
      });
    });

    it('answers 401 without a token and 403 to a non-administrator', async () => {
      await t.http().get(`/admin/users/${partner.id}`).expect(401);
      await t.http().get(`/admin/users/${partner.id}`).set('authorization', bearer(partner)).expect(403);
    });

    it.each(['0', '000', '-1', '+1', '%201', 'abc', '1.5', '1e3', '01x', '0x10', '1e309'])(
      'answers 400 for id %s on GET and PATCH',
      async (id) => {
        for (const req of [
          t.http().get(`/admin/users/${id}`),
          t.http().patch(`/admin/users/${id}`).send({ hub: true }),
        ]) {
          const res = await req.set('authorization', bearer(admin)).expect(400);
          expect(res.headers['content-type']).toBe(HAL);
          expect(res.body).toMatchObject({ status: 400, error: 'Bad Request' });
          expect(fields(res.body)).toEqual(['id']);
        }
      },
    );
  });

  describe('ids past the integer range', () => {
    it.each([
      ['2147483648', '2147483648'],
      ['99999999999', '99999999999'],
      ['00002147483648', '2147483648'],
      ['9'.repeat(40), '9'.repeat(40)],
    ])('answers GET and PATCH /%s with the 404 of any unknown id (above)', async (id, digits) => {
      for (const req of [
        t.http().get(`/admin/users/${id}`),
        t.http().patch(`/admin/users/${id}`).send({ hub: true }),
      ]) {
        const res = await req.set('authorization', bearer(admin)).expect(404);
        expect(res.headers['content-type']).toBe(HAL);
        expect(res.body).toEqual({
          timestamp: expect.stringMatching(ISO),
          status: 404,
          error: 'Not Found',
          message: `User ${digits} not found`,
          path: `/admin/users/${id}`,
          requestId: res.headers['x-request-id'],
        });
      }
    });

    it('still answers 401 and 403 first', async () => {
      await t.http().get('/admin/users/2147483648').expect(401);
      await t.http().get('/admin/users/2147483648').set('authorization', bearer(partner)).expect(403);
    });

    it('reads an id with leading zeros as the same number', async () => {
      const { user } = await create();
      const got = await t
        .http()
        .get(`/admin/users/0000000000000${user.id}`)
        .set('authorization', bearer(admin))
        .expect(200);
      expect(got.body).toEqual(user);
      const res = await t
        .http()
        .patch(`/admin/users/00${user.id}`)
        .set('authorization', bearer(admin))
        .send({ userName: 'Zeros' })
        .expect(200);
      expect(res.body).toMatchObject({ id: user.id, userName: 'Zeros' });
    });
  });

  describe('GET /admin/users (page envelope)', () => {
    let tenant: string;
    let ids: number[];
    let emails: string[];

    beforeAll(async () => {
      tenant = uniq('paged');
      ids = [];
      emails = [];
      // Names out of id order, so sorting by e-mail differs from sorting by id.
      for (const name of ['delta', 'alpha', 'echo', 'charlie', 'bravo']) {
        const { user } = await create({ tenant, email: `${name}-${uniq('u')}@example.com` });
        ids.push(user.id);
        emails.push(user.email);
      }
      // Users of another tenant, which the filter must leave out.
      await create({ tenant: `${tenant}-other` });
      await create({ tenant: tenant.toUpperCase() });
    });

    const list = (query: string) =>
      t.http().get(`/admin/users${query}`).set('authorization', bearer(admin)).expect(200);

    it('filters by tenant and sorts by id ascending by default, with the spec envelope', async () => {
      const res = await list(`?tenant=${tenant}`);
      expect(res.headers['content-type']).toBe(HAL);
      expect(res.body).toMatchObject({
        totalPages: 1,
        totalElements: 5,
        numberOfElements: 5,
        number: 0,
        size: 20,
        first: true,
        last: true,
        empty: false,
      });
      expect(res.body.content.map((u: { id: number }) => u.id)).toEqual(ids);
      expect(res.body.content.every((u: { tenant: string }) => u.tenant === tenant)).toBe(true);
      for (const item of res.body.content) expect(Object.keys(item).sort()).toEqual(USER_KEYS);
      expect(res.text.toLowerCase()).not.toContain('password');
      expect(res.body._links.self.href).toBe(`/admin/users?tenant=${tenant}&size=20&page=0`);
      expect(res.body._links.next).toBeUndefined();
      expect(res.body._links.prev).toBeUndefined();
    });

    it('pages through with size, keeping the query in the links', async () => {
      const first = await list(`?tenant=${tenant}&size=2`);
      expect(first.body).toMatchObject({
        totalPages: 3,
        totalElements: 5,
        numberOfElements: 2,
        number: 0,
        size: 2,
        first: true,
        last: false,
        empty: false,
      });
      expect(first.body.content.map((u: { id: number }) => u.id)).toEqual(ids.slice(0, 2));
      const q = `tenant=${tenant}&size=2`;
      expect(first.body._links).toEqual({
        self: { href: `/admin/users?${q}&page=0` },
        first: { href: `/admin/users?${q}&page=0` },
        last: { href: `/admin/users?${q}&page=2` },
        next: { href: `/admin/users?${q}&page=1` },
      });

      const middle = await list(`?tenant=${tenant}&size=2&page=1`);
      expect(middle.body).toMatchObject({ number: 1, first: false, last: false, numberOfElements: 2 });
      expect(middle.body.content.map((u: { id: number }) => u.id)).toEqual(ids.slice(2, 4));
      expect(middle.body._links.prev).toEqual({ href: `/admin/users?${q}&page=0` });
      expect(middle.body._links.next).toEqual({ href: `/admin/users?${q}&page=2` });

      const last = await list(`?tenant=${tenant}&size=2&page=2`);
      expect(last.body).toMatchObject({
        number: 2,
        first: false,
        last: true,
        numberOfElements: 1,
        empty: false,
      });
      expect(last.body.content.map((u: { id: number }) => u.id)).toEqual(ids.slice(4));
      expect(last.body._links.next).toBeUndefined();
    });

    it('answers a page past the end with 200 and empty content', async () => {
      const res = await list(`?tenant=${tenant}&size=2&page=7`);
      expect(res.body).toMatchObject({
        totalPages: 3,
        totalElements: 5,
        numberOfElements: 0,
        number: 7,
        empty: true,
        last: true,
        first: false,
        content: [],
      });
    });

    it.each([
      { page: '2147483647', size: 100, label: '2^31 - 1' },
      { page: '2147483648', size: 20, label: '2^31' },
      { page: '99999999999', size: 20, label: '11 digits' },
      { page: '9007199254740991', size: 1, label: '2^53 - 1 (the last offset sent to PostgreSQL)' },
      { page: '9007199254740992', size: 100, label: '2^53 (empty without a query)' },
      { page: '99999999999999999999', size: 100, label: "past PostgreSQL's bigint" },
      { page: '1'.repeat(400), size: 1, label: '400 digits (past a double)' },
      { page: '000000000000000000000000000007', size: 2, label: 'leading zeros' },
    ])('answers page $label with 200 and an empty page, the number exact', async ({ page, size }) => {
      const res = await list(`?tenant=${tenant}&size=${size}&page=${page}`);
      const lastPage = Math.ceil(5 / size) - 1;
      expect(res.body).toMatchObject({
        totalElements: 5,
        totalPages: lastPage + 1,
        numberOfElements: 0,
        size,
        first: false,
        last: true,
        empty: true,
        content: [],
      });
      // The exact digits, in the JSON text (JSON.parse rounds past 2^53) and in the links.
      const exact = BigInt(page).toString();
      expect(res.text).toContain(`"number":${exact},`);
      const q = `tenant=${tenant}&size=${size}`;
      expect(res.body._links).toEqual({
        self: { href: `/admin/users?${q}&page=${exact}` },
        first: { href: `/admin/users?${q}&page=0` },
        last: { href: `/admin/users?${q}&page=${lastPage}` },
        prev: { href: `/admin/users?${q}&page=${lastPage}` },
      });
    });

    it('still checks sort on a page past every offset', async () => {
      const res = await t
        .http()
        .get(`/admin/users?page=99999999999999999999&sort=passwordHash`)
        .set('authorization', bearer(admin))
        .expect(400);
      expect(fields(res.body)).toEqual(['sort']);
    });

    it('answers an unknown tenant with an empty page', async () => {
      const res = await list(`?tenant=${uniq('nobody')}`);
      expect(res.body).toMatchObject({ totalElements: 0, totalPages: 0, empty: true, content: [] });
    });

    it('lists every tenant without the filter', async () => {
      const res = await list('?size=100');
      const tenants = new Set(res.body.content.map((u: { tenant: string }) => u.tenant));
      expect(tenants.has(tenant)).toBe(true);
      expect(tenants.has(`${tenant}-other`)).toBe(true);
      expect(tenants.has(admin.tenant)).toBe(true);
    });

    it.each([
      ['email', (a: string[]) => [...a].sort()],
      ['email,asc', (a: string[]) => [...a].sort()],
      ['email,desc', (a: string[]) => [...a].sort().reverse()],
      ['email,DESC', (a: string[]) => [...a].sort().reverse()],
    ])('sorts by %s', async (sort, expected) => {
      const res = await list(`?tenant=${tenant}&sort=${sort}`);
      expect(res.body.content.map((u: { email: string }) => u.email)).toEqual(expected(emails));
      expect(res.body._links.self.href).toContain(`sort=${encodeURIComponent(sort)}`);
    });

    it('sorts by id descending and by createdAt', async () => {
      const desc = await list(`?tenant=${tenant}&sort=id,desc`);
      expect(desc.body.content.map((u: { id: number }) => u.id)).toEqual([...ids].reverse());
      const created = await list(`?tenant=${tenant}&sort=createdAt,asc`);
      expect(created.body.content.map((u: { id: number }) => u.id)).toEqual(ids);
    });

    it('accepts a repeated sort', async () => {
      const res = await list(`?sort=tenant,desc&sort=id,asc&size=100`);
      const rows = res.body.content as Array<{ tenant: string; id: number }>;
      for (let i = 1; i < rows.length; i++) {
        const a = rows[i - 1];
        const b = rows[i];
        // PostgreSQL's collation of the test database is C or a UTF-8 locale; equal tenants fall back to id.
        if (a.tenant === b.tenant) expect(a.id).toBeLessThan(b.id);
      }
      expect(res.body._links.self.href).toContain('sort=tenant%2Cdesc&sort=id%2Casc');
    });

    it.each([
      ['page=-1', 'page'],
      ['page=abc', 'page'],
      ['page=1.5', 'page'],
      ['page=1e3', 'page'],
      ['page=%2B1', 'page'],
      ['page=', 'page'],
      ['page=1&page=2', 'page'],
      ['size=0', 'size'],
      ['size=101', 'size'],
      ['size=x', 'size'],
      ['size=1&size=2', 'size'],
      ['sort=password', 'sort'],
      ['sort=passwordHash', 'sort'],
      ['sort=id,sideways', 'sort'],
      ['sort=id,asc,extra', 'sort'],
      ['tenant=', 'tenant'],
      ['tenant=a&tenant=b', 'tenant'],
      [`tenant=${'t'.repeat(255)}%EF%B8%8F`, 'tenant'],
      ['tenant=a%00b', 'tenant'],
      ['bogus=1', 'bogus'],
    ])('answers 400 for ?%s naming %s', async (query, field) => {
      const res = await t.http().get(`/admin/users?${query}`).set('authorization', bearer(admin)).expect(400);
      expect(res.headers['content-type']).toBe(HAL);
      expect(res.body).toMatchObject({ status: 400, error: 'Bad Request', path: '/admin/users' });
      expect(fields(res.body)).toEqual([field]);
    });

    it('answers 401 without a token and 403 to a non-administrator', async () => {
      const anon = await t.http().get('/admin/users').expect(401);
      expect(anon.body).toMatchObject({ status: 401, path: '/admin/users' });
      const res = await t.http().get('/admin/users').set('authorization', bearer(partner)).expect(403);
      expect(res.body).toMatchObject({ status: 403, error: 'Forbidden', path: '/admin/users' });
    });
  });

  describe('PATCH /admin/users/{id}', () => {
    const patch = (id: number, body: unknown) =>
      t
        .http()
        .patch(`/admin/users/${id}`)
        .set('authorization', bearer(admin))
        .send(body as object);
    const me = (user: { token: string }) => t.http().get('/auth/me').set('authorization', bearer(user));

    it.each([
      ['role', { role: 'ROLE_BRANCH' }, { role: '[[ROLE_BRANCH]]' }],
      ['role', { role: 'ROLE_CLIENT' }, { role: '[[ROLE_USER]]' }],
      ['partnerName', { partnerName: 'Renamed Ltd' }, { otherInformation: { partnerName: 'Renamed Ltd' } }],
      ['userName', { userName: 'New Name' }, { otherInformation: { userName: 'New Name' } }],
      ['hub', { hub: true }, { otherInformation: { hub: true } }],
      ['administrator', { administrator: true }, { isAdministrator: true }],
    ])('changes %s, returns the user and shows it on /auth/me at once', async (_field, change, shown) => {
      const user = await t.createUser();
      const res = await patch(user.id, change).expect(200);
      expect(res.headers['content-type']).toBe(HAL);
      expect(Object.keys(res.body).sort()).toEqual(USER_KEYS);
      const key = Object.keys(change)[0];
      const responseKey = key === 'administrator' ? 'isAdministrator' : key;
      expect(res.body[responseKey]).toEqual(Object.values(change)[0]);
      expect(res.text.toLowerCase()).not.toContain('password');
      // A role or administrator change refuses the tokens issued before it (contract section 8).
      const revokes = key === 'role' || key === 'administrator';
      if (revokes) await me(user).expect(401);
      const current = revokes ? (await login(user.email, user.password).expect(200)).body : user;
      const after = await me(current).expect(200);
      expect(after.body).toMatchObject(shown);
      const again = await t
        .http()
        .get(`/admin/users/${user.id}`)
        .set('authorization', bearer(admin))
        .expect(200);
      expect(again.body[responseKey]).toEqual(Object.values(change)[0]);
    });

    it('leaves the fields it was not given unchanged', async () => {
      const { user } = await create({ userName: 'Keep Me', hub: true });
      const res = await patch(user.id, { partnerName: 'Only This' }).expect(200);
      expect(res.body).toMatchObject({
        ...user,
        partnerName: 'Only This',
        updatedAt: expect.stringMatching(ISO),
      });
      expect(new Date(res.body.updatedAt).getTime()).toBeGreaterThanOrEqual(
        new Date(user.updatedAt as string).getTime(),
      );
    });

    it('grants and withdraws the administrator flag, refusing the tokens issued before', async () => {
      const user = await t.createUser();
      await t.http().get('/admin/users').set('authorization', bearer(user)).expect(403);
      await patch(user.id, { administrator: true }).expect(200);
      await t.http().get('/admin/users').set('authorization', bearer(user)).expect(401);
      const granted = (await login(user.email, user.password).expect(200)).body;
      await t.http().get('/admin/users').set('authorization', bearer(granted)).expect(200);
      expect((await me(granted).expect(200)).body.isAdministrator).toBe(true);
      await patch(user.id, { administrator: false }).expect(200);
      await t.http().get('/admin/users').set('authorization', bearer(granted)).expect(401);
      const withdrawn = (await login(user.email, user.password).expect(200)).body;
      await t.http().get('/admin/users').set('authorization', bearer(withdrawn)).expect(403);
      expect((await me(withdrawn).expect(200)).body.isAdministrator).toBe(false);
    });

    it('changes the password: the old one no longer logs in, the new one does', async () => {
      const user = await t.createUser();
      const next = `new-${randomBytes(6).toString('hex')}`;
      const res = await patch(user.id, { password: next }).expect(200);
      expect(res.text).not.toContain(next);
      expect(res.text.toLowerCase()).not.toContain('password');
      const old = await login(user.email, user.password).expect(401);
      expect(old.body).toMatchObject({ status: 401, message: 'Invalid e-mail or password' });
      const fresh = await login(user.email, next).expect(200);
      await me(fresh.body).expect(200);
    });

    it('disables and re-enables an account', async () => {
      const user = await t.createUser();
      const off = await patch(user.id, { enabled: false }).expect(200);
      expect(off.body.enabled).toBe(false);
      await me(user).expect(403);
      await login(user.email, user.password).expect(401);
      const on = await patch(user.id, { enabled: true }).expect(200);
      expect(on.body.enabled).toBe(true);
      // Tokens issued before the account was disabled stay refused (contract section 8).
      await me(user).expect(401);
      await me((await login(user.email, user.password).expect(200)).body).expect(200);
    });

    it('changes several fields at once', async () => {
      const { user } = await create();
      const res = await patch(user.id, { role: 'ROLE_BRANCH', hub: true, userName: 'Both' }).expect(200);
      expect(res.body).toMatchObject({ role: 'ROLE_BRANCH', hub: true, userName: 'Both' });
    });

    it('accepts an empty body and changes nothing', async () => {
      const { user } = await create();
      const res = await patch(user.id, {}).expect(200);
      expect(res.body).toMatchObject({ ...user, updatedAt: expect.any(String) });
    });

    it.each([
      ['password', { password: 'short' }],
      ['password', { password: 'p'.repeat(256) }],
      ['password', { password: null }],
      ['enabled', { enabled: null }],
      ['role', { role: null }],
      ['partnerName', { partnerName: null }],
      ['userName', { userName: null }],
      ['hub', { hub: null }],
      ['administrator', { administrator: null }],
      ['role', { role: 'ROLE_ADMIN' }],
      ['enabled', { enabled: 'false' }],
      ['hub', { hub: 'yes' }],
      ['administrator', { administrator: 1 }],
      ['partnerName', { partnerName: '' }],
      ['partnerName', { partnerName: 'x'.repeat(256) }],
      ['userName', { userName: 'y'.repeat(256) }],
      ...BAD_TEXT,
      ['email', { email: 'other@example.com' }],
      ['tenant', { tenant: 'other' }],
      ['partnerId', { partnerId: 9 }],
      ['passwordHash', { passwordHash: 'x' }],
    ])('answers 400 naming %s for %j and changes nothing', async (field, body) => {
      const { user } = await create();
      const res = await patch(user.id, body).expect(400);
      expect(res.headers['content-type']).toBe(HAL);
      expect(res.body).toMatchObject({ status: 400, error: 'Bad Request', path: `/admin/users/${user.id}` });
      expect(fields(res.body)).toEqual([field]);
      const now = await t
        .http()
        .get(`/admin/users/${user.id}`)
        .set('authorization', bearer(admin))
        .expect(200);
      expect(now.body).toEqual(user);
    });

    it('accepts 255 characters as PostgreSQL counts them', async () => {
      const { user } = await create();
      const change = { partnerName: `${'x'.repeat(254)}${VS16}`, userName: '🚀'.repeat(255) };
      const res = await patch(user.id, change).expect(200);
      expect(res.body).toMatchObject(change);
    });

    describe('a user sent back as GET returned it (contract section 4)', () => {
      const read = async (id: number) =>
        (await t.http().get(`/admin/users/${id}`).set('authorization', bearer(admin)).expect(200))
          .body as Record<string, unknown>;

      it.each([
        ['userName', 'Changed Name'],
        ['partnerName', 'Changed Ltda'],
        ['role', 'ROLE_CLIENT'],
        ['hub', true],
        ['enabled', false],
      ])('takes the GET body with %s changed', async (field, value) => {
        const { user } = await create();
        const got = await read(user.id);
        const res = await patch(user.id, { ...got, [field]: value }).expect(200);
        expect(res.body).toEqual({ ...got, [field]: value, updatedAt: expect.stringMatching(ISO) });
        expect(await read(user.id)).toEqual(res.body);
      });

      it('takes the GET body with administrator added, its isAdministrator as read', async () => {
        const { user } = await create();
        const got = await read(user.id);
        expect(got.isAdministrator).toBe(false);
        const res = await patch(user.id, { ...got, administrator: true }).expect(200);
        expect(res.body).toEqual({ ...got, isAdministrator: true, updatedAt: expect.stringMatching(ISO) });
      });

      it('ignores email, tenant, partnerId and isAdministrator equal to the stored values', async () => {
        const { user } = await create({ administrator: true });
        const res = await patch(user.id, {
          email: user.email,
          tenant: user.tenant,
          partnerId: user.partnerId,
          isAdministrator: true,
        }).expect(200);
        expect(res.body).toEqual({ ...user, updatedAt: expect.stringMatching(ISO) });
      });

      it("ignores id, createdAt, updatedAt and _links, even another user's", async () => {
        const { user } = await create();
        const other = await create();
        const otherBefore = await read(other.user.id);
        const res = await patch(user.id, {
          ...otherBefore,
          email: user.email,
          tenant: user.tenant,
          partnerId: user.partnerId,
          userName: 'Only Me',
        }).expect(200);
        expect(res.body).toEqual({
          ...user,
          partnerName: otherBefore.partnerName,
          userName: 'Only Me',
          updatedAt: expect.stringMatching(ISO),
        });
        expect(await read(other.user.id)).toEqual(otherBefore);
      });

      it.each([
        ['email', (u: Record<string, unknown>) => ({ email: `x${u.email as string}` })],
        ['email', (u: Record<string, unknown>) => ({ email: (u.email as string).toUpperCase() })],
        ['email', () => ({ email: null })],
        ['tenant', (u: Record<string, unknown>) => ({ tenant: `${u.tenant as string}-other` })],
        ['partnerId', () => ({ partnerId: 8 })],
        ['partnerId', () => ({ partnerId: '7' })],
        ['isAdministrator', () => ({ isAdministrator: true })],
        ['isAdministrator', () => ({ isAdministrator: 'false' })],
      ])('refuses a changed %s with a 400 naming it and stores nothing', async (field, change) => {
        const { user } = await create();
        const got = await read(user.id);
        const res = await patch(user.id, { ...got, userName: 'Not Stored', ...change(got) }).expect(400);
        expect(res.headers['content-type']).toBe(HAL);
        expect(res.body).toMatchObject({
          status: 400,
          error: 'Bad Request',
          path: `/admin/users/${user.id}`,
        });
        expect(fields(res.body)).toEqual([field]);
        expect(res.body.errors[0].message).toMatch(/cannot be changed/);
        expect(await read(user.id)).toEqual(got);
      });

      it('says to change the administrator flag with administrator', async () => {
        const { user } = await create();
        const res = await patch(user.id, { isAdministrator: true }).expect(400);
        expect(res.body.errors).toEqual([
          {
            field: 'isAdministrator',
            message: 'isAdministrator cannot be changed: set administrator instead',
          },
        ]);
      });

      it('names every changed field at once', async () => {
        const { user } = await create();
        const res = await patch(user.id, {
          email: 'someone@example.com',
          tenant: 'other',
          partnerId: 99,
        }).expect(400);
        expect(fields(res.body)).toEqual(['email', 'partnerId', 'tenant']);
      });

      it('still refuses an unknown field in a GET body, storing nothing', async () => {
        const { user } = await create();
        const got = await read(user.id);
        const res = await patch(user.id, { ...got, userName: 'Not Stored', password_hash: 'x' }).expect(400);
        expect(fields(res.body)).toEqual(['password_hash']);
        expect(res.body.errors[0].message).toBe('password_hash is not a known field');
        expect(await read(user.id)).toEqual(got);
      });
    });

    it('says a null field must not be null', async () => {
      const { user } = await create();
      const res = await patch(user.id, { password: null }).expect(400);
      expect(res.body.errors).toEqual([{ field: 'password', message: 'password must not be null' }]);
    });

    it('answers 404 for an unknown id', async () => {
      const res = await patch(2_147_483_600, { hub: true }).expect(404);
      expect(res.body).toMatchObject({ status: 404, error: 'Not Found', path: '/admin/users/2147483600' });
    });

    it('answers 401 without a token and 403 to a non-administrator, changing nothing', async () => {
      const { user } = await create();
      await t.http().patch(`/admin/users/${user.id}`).send({ administrator: true }).expect(401);
      const res = await t
        .http()
        .patch(`/admin/users/${user.id}`)
        .set('authorization', bearer(partner))
        .send({ administrator: true })
        .expect(403);
      expect(res.body).toMatchObject({ status: 403, error: 'Forbidden' });
      // A non-administrator cannot make itself an administrator either.
      await t
        .http()
        .patch(`/admin/users/${partner.id}`)
        .set('authorization', bearer(partner))
        .send({ administrator: true })
        .expect(403);
      const now = await t
        .http()
        .get(`/admin/users/${user.id}`)
        .set('authorization', bearer(admin))
        .expect(200);
      expect(now.body.isAdministrator).toBe(false);
    });
  });

  it('answers 404 with the error body for methods the resource does not have', async () => {
    const res = await t
      .http()
      .delete(`/admin/users/${partner.id}`)
      .set('authorization', bearer(admin))
      .expect(404);
    expect(res.headers['content-type']).toBe(HAL);
    expect(res.body).toMatchObject({ status: 404, error: 'Not Found' });
    await t.http().get(`/admin/users/${partner.id}`).set('authorization', bearer(admin)).expect(200);
  });
});
