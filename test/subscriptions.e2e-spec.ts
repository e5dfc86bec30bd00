import type { Response } from 'supertest';
import { SecretBox } from '../src/common/crypto/secret-box';
import { sealedIn } from '../src/subscriptions/sealed-columns';
import { UserRole } from '../src/common/reference/enums';
import { startTestApp, TestApp, TestUser, uniq } from './support/test-app';

const PATH = '/webhooks/subscriptions';
const HAL = 'application/hal+json;charset=UTF-8';
const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

const bearer = (user: TestUser) => ({ authorization: `Bearer ${user.token}` });
const newBody = (overrides: Record<string, unknown> = {}) => ({
  name: uniq('sub'),
  url: 'https://receiver.example.com/hooks',
  events: ['LICENCE_CREATED_SUCCESS'],
  ...overrides,
});

/** The contract's error body (section 4). */
function expectErrorBody(res: Response, status: number, path: string): void {
  expect(res.status).toBe(status);
  expect(res.headers['content-type']).toBe(HAL);
  expect(res.body).toMatchObject({ status, path, message: expect.any(String), error: expect.any(String) });
  expect(res.body.requestId).toBe(res.headers['x-request-id']);
  expect(res.body.timestamp).toMatch(ISO);
}

describe('Webhook subscriptions: CRUD, permissions and tenants', () => {
  let t: TestApp;
  let partner: TestUser;

  const create = async (user: TestUser, overrides: Record<string, unknown> = {}) => {
    const res = await t.http().post(PATH).set(bearer(user)).send(newBody(overrides)).expect(200);
    return res.body;
  };
  const storedHeader = async (id: number) => {
    const rows = await t.dataSource.query(
      'SELECT header_name, header_value_encrypted FROM subscriptions WHERE id = $1',
      [id],
    );
    return rows[0] as { header_name: string | null; header_value_encrypted: string | null };
  };

  beforeAll(async () => {
    t = await startTestApp();
    partner = await t.createUser();
  });
  afterAll(async () => {
    await t?.close();
  });

  describe('POST', () => {
    it('creates a subscription: 200 (not 201) with the full resource and its links', async () => {
      const body = newBody({ events: ['LICENCE_CREATED_FAILED', 'LICENCE_CREATED_SUCCESS'] });
      const res = await t.http().post(PATH).set(bearer(partner)).send(body).expect(200);
      expect(res.headers['content-type']).toBe(HAL);
      expect(res.headers['x-request-id']).toEqual(expect.any(String));
      expect(res.body).toEqual({
        id: expect.any(Number),
        tenant: partner.tenant,
        active: true,
        name: body.name,
        url: body.url,
        description: null,
        events: ['LICENCE_CREATED_FAILED', 'LICENCE_CREATED_SUCCESS'],
        headerName: null,
        maxDeliveriesPerSecond: null,
        health: {
          status: 'UNKNOWN',
          lastAttemptAt: null,
          lastSuccessAt: null,
          failingSince: null,
          consecutiveFailures: 0,
        },
        createdAt: expect.stringMatching(ISO),
        updatedAt: expect.stringMatching(ISO),
        _links: {
          self: { href: `${PATH}/${res.body.id}` },
          deliveries: { href: `${PATH}/${res.body.id}/deliveries` },
        },
      });
      expect(Object.keys(res.body)).toEqual([
        'id',
        'tenant',
        'active',
        'name',
        'url',
        'description',
        'events',
        'headerName',
        'maxDeliveriesPerSecond',
        'health',
        'createdAt',
        'updatedAt',
        '_links',
      ]);
    });

    it('stores every optional field and collapses duplicate events', async () => {
      const res = await t
        .http()
        .post(PATH)
        .set(bearer(partner))
        .send(
          newBody({
            active: false,
            description: 'line one\nline two',
            events: ['LICENCE_CREATED_SUCCESS', 'LICENCE_CREATED_FAILED', 'LICENCE_CREATED_SUCCESS'],
            headerName: 'X-Api-Key',
            headerValue: 'secret-value-123',
          }),
        )
        .expect(200);
      expect(res.body).toMatchObject({
        active: false,
        description: 'line one\nline two',
        events: ['LICENCE_CREATED_SUCCESS', 'LICENCE_CREATED_FAILED'],
        headerName: 'X-Api-Key',
      });
      const get = await t.http().get(`${PATH}/${res.body.id}`).set(bearer(partner)).expect(200);
      expect(get.body).toEqual(res.body);
    });

    it('ignores read-only fields in the body', async () => {
      const res = await t
        .http()
        .post(PATH)
        .set(bearer(partner))
        .send(
          newBody({
            id: 999999,
            tenant: 'someone-else',
            createdAt: '2000-01-01T00:00:00.000Z',
            updatedAt: 'not even a date',
            _links: { self: { href: '/elsewhere' } },
          }),
        )
        .expect(200);
      expect(res.body.id).not.toBe(999999);
      expect(res.body.tenant).toBe(partner.tenant);
      expect(res.body.createdAt).not.toBe('2000-01-01T00:00:00.000Z');
      expect(res.body._links.self.href).toBe(`${PATH}/${res.body.id}`);
    });

    it.each([
      ['name', { name: undefined }],
      ['url', { url: undefined }],
      ['events', { events: undefined }],
    ])('requires %s (400 naming it)', async (field, overrides) => {
      const res = await t.http().post(PATH).set(bearer(partner)).send(newBody(overrides));
      expectErrorBody(res, 400, PATH);
      expect(res.body.error).toBe('Bad Request');
      expect(res.body.errors).toEqual([{ field, message: `${field} is required` }]);
    });

    it('rejects an unknown field with 400 naming it', async () => {
      const res = await t
        .http()
        .post(PATH)
        .set(bearer(partner))
        .send(newBody({ secret: 'x' }));
      expectErrorBody(res, 400, PATH);
      expect(res.body.errors).toEqual([{ field: 'secret', message: 'secret is not a known field' }]);
    });

    it('rejects an http:// URL', async () => {
      const res = await t
        .http()
        .post(PATH)
        .set(bearer(partner))
        .send(newBody({ url: 'http://receiver.example.com/hooks' }));
      expectErrorBody(res, 400, PATH);
      expect(res.body.errors.map((e: { field: string }) => e.field)).toEqual(['url']);
    });
  });

  describe('GET /{id}', () => {
    it('returns the subscription', async () => {
      const created = await create(partner);
      const res = await t.http().get(`${PATH}/${created.id}`).set(bearer(partner)).expect(200);
      expect(res.headers['content-type']).toBe(HAL);
      expect(res.body).toEqual(created);
    });

    it('is 404 with the error body for an id that does not exist', async () => {
      const res = await t.http().get(`${PATH}/2147483647`).set(bearer(partner));
      expectErrorBody(res, 404, `${PATH}/2147483647`);
      expect(res.body.error).toBe('Not Found');
      expect(res.body.errors).toBeUndefined();
    });

    it('is 400 naming id for an id that is not a positive integer', async () => {
      const res = await t.http().get(`${PATH}/abc`).set(bearer(partner));
      expectErrorBody(res, 400, `${PATH}/abc`);
      expect(res.body.errors).toEqual([{ field: 'id', message: expect.any(String) }]);
    });
  });

  describe('PUT /{id}', () => {
    it('replaces the subscription: omitted optional fields are cleared, active is kept', async () => {
      const created = await create(partner, { active: false, description: 'old', headerName: 'X-Old' });
      await new Promise((r) => setTimeout(r, 5));
      const replacement = {
        name: uniq('renamed'),
        url: 'https://other.example.com/new',
        events: ['LICENCE_CREATED_FAILED', 'LICENCE_CREATED_FAILED'],
      };
      const res = await t
        .http()
        .put(`${PATH}/${created.id}`)
        .set(bearer(partner))
        .send(replacement)
        .expect(200);
      expect(res.headers['content-type']).toBe(HAL);
      expect(res.body).toEqual({
        ...created,
        ...replacement,
        events: ['LICENCE_CREATED_FAILED'],
        active: false,
        description: null,
        headerName: null,
        updatedAt: expect.stringMatching(ISO),
      });
      expect(Date.parse(res.body.updatedAt)).toBeGreaterThan(Date.parse(created.updatedAt));
      const get = await t.http().get(`${PATH}/${created.id}`).set(bearer(partner)).expect(200);
      expect(get.body).toEqual(res.body);
    });

    it('sets active when given', async () => {
      const created = await create(partner);
      const res = await t
        .http()
        .put(`${PATH}/${created.id}`)
        .set(bearer(partner))
        .send(newBody({ active: false }))
        .expect(200);
      expect(res.body.active).toBe(false);
      const again = await t
        .http()
        .put(`${PATH}/${created.id}`)
        .set(bearer(partner))
        .send(newBody({ active: true }))
        .expect(200);
      expect(again.body.active).toBe(true);
    });

    it('accepts a GET-change-PUT round trip of the whole resource', async () => {
      const created = await create(partner, {
        description: 'before',
        headerName: 'X-Token',
        headerValue: 'tok-1',
      });
      const got = (await t.http().get(`${PATH}/${created.id}`).set(bearer(partner)).expect(200)).body;
      const changed = { ...got, name: `${got.name}-changed`, description: 'after' };
      const res = await t.http().put(`${PATH}/${created.id}`).set(bearer(partner)).send(changed).expect(200);
      expect(res.body).toEqual({
        ...got,
        name: changed.name,
        description: 'after',
        updatedAt: expect.any(String),
      });
      // headerName unchanged and headerValue omitted: the stored value is kept.
      const stored = await storedHeader(created.id);
      expect(
        t.app
          .get(SecretBox, { strict: false })
          .open(stored.header_value_encrypted!, sealedIn.headerValue(created.id)),
      ).toBe('tok-1');
    });

    it('requires name, url and events like POST', async () => {
      const created = await create(partner);
      const res = await t.http().put(`${PATH}/${created.id}`).set(bearer(partner)).send({ active: true });
      expectErrorBody(res, 400, `${PATH}/${created.id}`);
      expect(res.body.errors.map((e: { field: string }) => e.field).sort()).toEqual([
        'events',
        'name',
        'url',
      ]);
      const get = await t.http().get(`${PATH}/${created.id}`).set(bearer(partner)).expect(200);
      expect(get.body).toEqual(created);
    });

    it('is 404 for an id that does not exist, even with a valid body', async () => {
      const res = await t.http().put(`${PATH}/2147483647`).set(bearer(partner)).send(newBody());
      expectErrorBody(res, 404, `${PATH}/2147483647`);
    });
  });

  describe('DELETE /{id}', () => {
    it('returns 200 with the subscription as it was, then it is gone', async () => {
      const created = await create(partner, { headerName: 'X-Key', headerValue: 'delete-me-secret' });
      const res = await t.http().delete(`${PATH}/${created.id}`).set(bearer(partner)).expect(200);
      expect(res.headers['content-type']).toBe(HAL);
      expect(res.body).toEqual(created);
      expect(res.text).not.toContain('delete-me-secret');
      await t.http().get(`${PATH}/${created.id}`).set(bearer(partner)).expect(404);
      const again = await t.http().delete(`${PATH}/${created.id}`).set(bearer(partner));
      expectErrorBody(again, 404, `${PATH}/${created.id}`);
      await expect(
        t.dataSource.query('SELECT 1 FROM subscriptions WHERE id = $1', [created.id]),
      ).resolves.toEqual([]);
    });
  });

  describe('headerValue is write-only and stored encrypted', () => {
    const secret = () => `s3cr3t-${uniq('v')}`;

    it('never appears in a response and is sealed with AES-256-GCM at rest', async () => {
      const value = secret();
      const res = await t
        .http()
        .post(PATH)
        .set(bearer(partner))
        .send(newBody({ headerName: 'X-Shared-Secret', headerValue: value }))
        .expect(200);
      const id = res.body.id;
      const texts = [
        res.text,
        (await t.http().get(`${PATH}/${id}`).set(bearer(partner)).expect(200)).text,
        (await t.http().get(PATH).set(bearer(partner)).query({ size: 100 }).expect(200)).text,
        (await t.http().get(`${PATH}/active`).set(bearer(partner)).query({ size: 100 }).expect(200)).text,
        (
          await t
            .http()
            .put(`${PATH}/${id}`)
            .set(bearer(partner))
            .send(newBody({ headerName: 'X-Shared-Secret' }))
        ).text,
      ];
      for (const text of texts) {
        expect(text).toContain(`"id":${id}`);
        expect(text).not.toContain(value);
        expect(text).not.toContain('headerValue');
        expect(text).not.toContain('header_value');
      }
      const stored = await storedHeader(id);
      expect(stored.header_name).toBe('X-Shared-Secret');
      expect(stored.header_value_encrypted).toMatch(/^v2\./);
      expect(stored.header_value_encrypted).not.toContain(value);
      expect(stored.header_value_encrypted).not.toContain(Buffer.from(value).toString('base64'));
      expect(
        t.app
          .get(SecretBox, { strict: false })
          .open(stored.header_value_encrypted!, sealedIn.headerValue(id)),
      ).toBe(value);
    });

    it('is kept by a PUT that omits it with the same headerName (any case)', async () => {
      const created = await create(partner, { headerName: 'X-Key', headerValue: secret() });
      const before = await storedHeader(created.id);
      await t
        .http()
        .put(`${PATH}/${created.id}`)
        .set(bearer(partner))
        .send(newBody({ headerName: 'X-Key' }))
        .expect(200);
      expect(await storedHeader(created.id)).toEqual(before);
      const res = await t
        .http()
        .put(`${PATH}/${created.id}`)
        .set(bearer(partner))
        .send(newBody({ headerName: 'x-key' }))
        .expect(200);
      expect(res.body.headerName).toBe('x-key');
      expect((await storedHeader(created.id)).header_value_encrypted).toBe(before.header_value_encrypted);
    });

    it('is replaced by a PUT with a new value', async () => {
      const created = await create(partner, { headerName: 'X-Key', headerValue: secret() });
      const value = secret();
      await t
        .http()
        .put(`${PATH}/${created.id}`)
        .set(bearer(partner))
        .send(newBody({ headerName: 'X-Key', headerValue: value }))
        .expect(200);
      const stored = await storedHeader(created.id);
      expect(
        t.app
          .get(SecretBox, { strict: false })
          .open(stored.header_value_encrypted!, sealedIn.headerValue(created.id)),
      ).toBe(value);
    });

    it('is cleared by headerValue: null', async () => {
      const created = await create(partner, { headerName: 'X-Key', headerValue: secret() });
      const res = await t
        .http()
        .put(`${PATH}/${created.id}`)
        .set(bearer(partner))
        .send(newBody({ headerName: 'X-Key', headerValue: null }))
        .expect(200);
      expect(res.body.headerName).toBe('X-Key');
      expect(await storedHeader(created.id)).toEqual({ header_name: 'X-Key', header_value_encrypted: null });
    });

    it.each([
      ['dropping headerName', {}],
      ['headerName: null', { headerName: null }],
      ['headerName and headerValue null', { headerName: null, headerValue: null }],
    ])('is cleared by %s', async (_name, overrides) => {
      const created = await create(partner, { headerName: 'X-Key', headerValue: secret() });
      const res = await t
        .http()
        .put(`${PATH}/${created.id}`)
        .set(bearer(partner))
        .send(newBody(overrides))
        .expect(200);
      expect(res.body.headerName).toBeNull();
      expect(await storedHeader(created.id)).toEqual({ header_name: null, header_value_encrypted: null });
    });

    it('is cleared by a PUT with another headerName and no headerValue', async () => {
      const created = await create(partner, { headerName: 'X-Key', headerValue: secret() });
      await t
        .http()
        .put(`${PATH}/${created.id}`)
        .set(bearer(partner))
        .send(newBody({ headerName: 'X-Other' }))
        .expect(200);
      expect(await storedHeader(created.id)).toEqual({
        header_name: 'X-Other',
        header_value_encrypted: null,
      });
    });

    it('needs a headerName (400 naming headerValue), on POST and PUT', async () => {
      const post = await t
        .http()
        .post(PATH)
        .set(bearer(partner))
        .send(newBody({ headerValue: 'v' }));
      expectErrorBody(post, 400, PATH);
      expect(post.body.errors).toEqual([{ field: 'headerValue', message: 'headerValue needs a headerName' }]);
      const created = await create(partner, { headerName: 'X-Key', headerValue: 'v1' });
      const put = await t
        .http()
        .put(`${PATH}/${created.id}`)
        .set(bearer(partner))
        .send(newBody({ headerName: null, headerValue: 'v2' }));
      expectErrorBody(put, 400, `${PATH}/${created.id}`);
      expect(put.body.errors.map((e: { field: string }) => e.field)).toEqual(['headerValue']);
      const stored = await storedHeader(created.id);
      expect(
        t.app
          .get(SecretBox, { strict: false })
          .open(stored.header_value_encrypted!, sealedIn.headerValue(created.id)),
      ).toBe('v1');
    });
  });

  describe('authentication and roles', () => {
    let target: number;
    beforeAll(async () => {
      target = (await create(partner)).id;
    });

    const calls = [
      ['GET list', (id: number) => ({ method: 'get', path: PATH, id })],
      ['GET active', (id: number) => ({ method: 'get', path: `${PATH}/active`, id })],
      ['GET one', (id: number) => ({ method: 'get', path: `${PATH}/${id}`, id })],
      ['POST', (id: number) => ({ method: 'post', path: PATH, id })],
      ['PUT', (id: number) => ({ method: 'put', path: `${PATH}/${id}`, id })],
      ['DELETE', (id: number) => ({ method: 'delete', path: `${PATH}/${id}`, id })],
    ] as const;
    const send = (method: string, path: string, headers: Record<string, string>) => {
      const http = t.http();
      const req =
        method === 'get'
          ? http.get(path)
          : method === 'post'
            ? http.post(path)
            : method === 'put'
              ? http.put(path)
              : http.delete(path);
      req.set(headers);
      return method === 'post' || method === 'put' ? req.send(newBody()) : req;
    };

    it.each(calls)('%s without a token is 401 with the error body', async (_name, call) => {
      const { method, path } = call(target);
      const res = await send(method, path, {});
      expectErrorBody(res, 401, path);
      expect(res.body.error).toBe('Unauthorized');
    });

    it.each(calls)('%s with an invalid token is 401', async (_name, call) => {
      const { method, path } = call(target);
      const res = await send(method, path, { authorization: 'Bearer not.a.token' });
      expectErrorBody(res, 401, path);
    });

    describe.each([UserRole.ROLE_CLIENT, UserRole.ROLE_BRANCH])('%s', (role) => {
      let user: TestUser;
      beforeAll(async () => {
        // Same tenant as the subscription: the role alone is what refuses them.
        user = await t.createUser({ role, tenant: partner.tenant });
      });

      it.each(calls)('%s is 403 with the error body', async (_name, call) => {
        const { method, path } = call(target);
        const res = await send(method, path, bearer(user));
        expectErrorBody(res, 403, path);
        expect(res.body.error).toBe('Forbidden');
      });

      it('changed nothing', async () => {
        await t.http().get(`${PATH}/${target}`).set(bearer(partner)).expect(200);
      });
    });

    it('a disabled partner is 403', async () => {
      const disabled = await t.createUser({ enabled: false });
      const res = await t.http().get(PATH).set(bearer(disabled));
      expectErrorBody(res, 403, PATH);
    });

    it('a ROLE_CLIENT administrator passes (administrators always do)', async () => {
      const admin = await t.createUser({ role: UserRole.ROLE_CLIENT, admin: true });
      await t.http().get(`${PATH}/${target}`).set(bearer(admin)).expect(200);
    });
  });

  describe('tenant isolation', () => {
    let a: TestUser;
    let b: TestUser;
    let subA: Record<string, unknown> & { id: number };

    beforeAll(async () => {
      a = await t.createUser();
      b = await t.createUser();
      subA = await create(a, { headerName: 'X-A', headerValue: 'a-secret' });
      await create(b);
    });

    it("partner B gets 404 on partner A's subscription for GET, PUT and DELETE", async () => {
      const path = `${PATH}/${subA.id}`;
      expectErrorBody(await t.http().get(path).set(bearer(b)), 404, path);
      expectErrorBody(await t.http().put(path).set(bearer(b)).send(newBody()), 404, path);
      expectErrorBody(await t.http().delete(path).set(bearer(b)), 404, path);
      const after = await t.http().get(path).set(bearer(a)).expect(200);
      expect(after.body).toEqual(subA);
    });

    it("lists show only the caller's tenant", async () => {
      for (const path of [PATH, `${PATH}/active`]) {
        const resA = await t.http().get(path).set(bearer(a)).query({ size: 100 }).expect(200);
        const resB = await t.http().get(path).set(bearer(b)).query({ size: 100 }).expect(200);
        expect(resA.body.totalElements).toBe(1);
        expect(resA.body.content.map((s: { id: number }) => s.id)).toEqual([subA.id]);
        expect(resB.body.totalElements).toBe(1);
        expect(resB.body.content.every((s: { tenant: string }) => s.tenant === b.tenant)).toBe(true);
      }
    });

    it('a tenant given by a partner in a body is ignored on POST and PUT', async () => {
      const created = await create(b, { tenant: a.tenant });
      expect(created.tenant).toBe(b.tenant);
      const put = await t
        .http()
        .put(`${PATH}/${created.id}`)
        .set(bearer(b))
        .send(newBody({ tenant: a.tenant }))
        .expect(200);
      expect(put.body.tenant).toBe(b.tenant);
      await t.http().delete(`${PATH}/${created.id}`).set(bearer(b)).expect(200);
    });

    it.each([PATH, `${PATH}/active`])(
      'a partner passing the tenant filter on %s gets 400 naming tenant',
      async (path) => {
        const res = await t.http().get(path).set(bearer(b)).query({ tenant: a.tenant });
        expectErrorBody(res, 400, path);
        expect(res.body.errors).toEqual([{ field: 'tenant', message: 'tenant is not a known field' }]);
      },
    );
  });

  describe('administrators', () => {
    let admin: TestUser;
    let p1: TestUser;
    let p2: TestUser;
    let s1: { id: number; tenant: string };
    let s2: { id: number; tenant: string };

    beforeAll(async () => {
      admin = await t.createUser({ admin: true });
      p1 = await t.createUser();
      p2 = await t.createUser();
      s1 = await create(p1);
      s2 = await create(p2, { active: false });
    });

    it('see every tenant in the list', async () => {
      const res = await t
        .http()
        .get(PATH)
        .set(bearer(admin))
        .query({ size: 100, sort: 'id,desc' })
        .expect(200);
      const ids = res.body.content.map((s: { id: number }) => s.id);
      expect(ids).toEqual(expect.arrayContaining([s1.id, s2.id]));
      const total = await t.dataSource.query('SELECT count(*)::int AS n FROM subscriptions');
      expect(res.body.totalElements).toBe(total[0].n);
    });

    it('filter a list by tenant, keeping the filter in the links', async () => {
      const res = await t.http().get(PATH).set(bearer(admin)).query({ tenant: p1.tenant }).expect(200);
      expect(res.body.totalElements).toBe(1);
      expect(res.body.content[0]).toMatchObject({ id: s1.id, tenant: p1.tenant });
      expect(res.body._links.self.href).toContain(`tenant=${encodeURIComponent(p1.tenant)}`);
      const active = await t
        .http()
        .get(`${PATH}/active`)
        .set(bearer(admin))
        .query({ tenant: p2.tenant, active: 'false' })
        .expect(200);
      expect(active.body.content.map((s: { id: number }) => s.id)).toEqual([s2.id]);
    });

    it("read, replace and delete another tenant's subscription", async () => {
      await t.http().get(`${PATH}/${s1.id}`).set(bearer(admin)).expect(200);
      const put = await t
        .http()
        .put(`${PATH}/${s1.id}`)
        .set(bearer(admin))
        .send(newBody({ name: 'set by admin' }))
        .expect(200);
      expect(put.body).toMatchObject({ name: 'set by admin', tenant: p1.tenant });
      const created = await create(p2);
      await t.http().delete(`${PATH}/${created.id}`).set(bearer(admin)).expect(200);
      await t.http().get(`${PATH}/${created.id}`).set(bearer(p2)).expect(404);
    });

    it("create for another tenant with tenant in the body, which that tenant's partner then sees", async () => {
      const res = await t
        .http()
        .post(PATH)
        .set(bearer(admin))
        .send(newBody({ tenant: p1.tenant }))
        .expect(200);
      expect(res.body.tenant).toBe(p1.tenant);
      const seen = await t.http().get(`${PATH}/${res.body.id}`).set(bearer(p1)).expect(200);
      expect(seen.body).toEqual(res.body);
    });

    it('create in their own tenant when the body has none (or null)', async () => {
      expect((await create(admin)).tenant).toBe(admin.tenant);
      expect((await create(admin, { tenant: null })).tenant).toBe(admin.tenant);
    });

    it('may move a subscription with tenant in a PUT body; omitted, the tenant stays', async () => {
      const created = await create(admin, { tenant: p1.tenant });
      const kept = await t.http().put(`${PATH}/${created.id}`).set(bearer(admin)).send(newBody()).expect(200);
      expect(kept.body.tenant).toBe(p1.tenant);
      const moved = await t
        .http()
        .put(`${PATH}/${created.id}`)
        .set(bearer(admin))
        .send(newBody({ tenant: p2.tenant }))
        .expect(200);
      expect(moved.body.tenant).toBe(p2.tenant);
      await t.http().get(`${PATH}/${created.id}`).set(bearer(p1)).expect(404);
      await t.http().get(`${PATH}/${created.id}`).set(bearer(p2)).expect(200);
    });

    it.each([
      ['a number', 42],
      ['an empty string', ''],
      ['blank', '   '],
      ['256 characters', 't'.repeat(256)],
      ['an array', ['a']],
      ['an object', { a: 1 }],
      ['a control character', 'ten\u0000ant'],
    ])('get 400 naming tenant for a tenant that is %s', async (_name, tenant) => {
      const before = await t.http().get(PATH).set(bearer(admin)).query({ size: 1 }).expect(200);
      const res = await t.http().post(PATH).set(bearer(admin)).send(newBody({ tenant }));
      expectErrorBody(res, 400, PATH);
      expect(res.body.errors).toEqual([{ field: 'tenant', message: expect.any(String) }]);
      const after = await t.http().get(PATH).set(bearer(admin)).query({ size: 1 }).expect(200);
      expect(after.body.totalElements).toBe(before.body.totalElements);
    });
  });
});
