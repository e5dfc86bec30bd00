import type { Response } from 'supertest';
import { startTestApp, TestApp, TestUser, uniq } from './support/test-app';

const PATH = '/webhooks/subscriptions';
const HAL = 'application/hal+json;charset=UTF-8';

const bearer = (user: TestUser) => ({ authorization: `Bearer ${user.token}` });
const valid = () => ({
  name: uniq('sub'),
  url: 'https://receiver.example.com/hooks',
  events: ['LICENCE_CREATED_SUCCESS'],
});

/** A 4xx with the contract's error body; never a 5xx, a stack trace or SQL. */
function expectClientError(res: Response, path: string): void {
  expect(res.status).toBeGreaterThanOrEqual(400);
  expect(res.status).toBeLessThan(500);
  expect(res.headers['content-type']).toBe(HAL);
  expect(res.headers['x-request-id']).toEqual(expect.any(String));
  expect(res.body).toMatchObject({
    status: res.status,
    error: expect.any(String),
    message: expect.any(String),
    path,
    requestId: res.headers['x-request-id'],
    timestamp: expect.any(String),
  });
  expect(res.text).not.toMatch(/\bat .*\.(ts|js):\d+|SELECT|INSERT|UPDATE|QueryFailedError/);
}

/** A 400 whose `errors` names `field`. */
function expectFieldError(res: Response, path: string, field: string): void {
  expectClientError(res, path);
  expect(res.status).toBe(400);
  expect(res.body.error).toBe('Bad Request');
  expect(res.body.errors).toEqual(expect.arrayContaining([{ field, message: expect.any(String) }]));
}

const LONG_URL = 'https://receiver.example.com/hooks/';

/** [case, field named in the error, overrides of a valid body]. */
const BAD_BODIES: Array<[string, string, Record<string, unknown>]> = [
  ['name empty', 'name', { name: '' }],
  ['name blank', 'name', { name: '   ' }],
  ['name 256 characters', 'name', { name: 'n'.repeat(256) }],
  ['name 256 emoji', 'name', { name: '🚀'.repeat(256) }],
  ['name a number', 'name', { name: 5 }],
  ['name a boolean', 'name', { name: true }],
  ['name null', 'name', { name: null }],
  ['name an array', 'name', { name: ['a'] }],
  ['name an object', 'name', { name: { a: 1 } }],
  ['name with NUL', 'name', { name: 'a\u0000b' }],
  ['name with a line feed', 'name', { name: 'a\nb' }],
  ['name with DEL', 'name', { name: 'a\u007fb' }],
  ['name with a C1 control', 'name', { name: 'a\u0085b' }],
  ['url missing', 'url', { url: undefined }],
  ['url empty', 'url', { url: '' }],
  ['url http', 'url', { url: 'http://receiver.example.com/' }],
  ['url ftp', 'url', { url: 'ftp://receiver.example.com/' }],
  ['url javascript', 'url', { url: 'javascript:alert(1)' }],
  ['url relative', 'url', { url: '/hooks' }],
  ['url scheme-relative', 'url', { url: '//receiver.example.com/' }],
  ['url without slashes', 'url', { url: 'https:receiver.example.com' }],
  ['url with three slashes', 'url', { url: 'https:///receiver.example.com' }],
  ['url with no host', 'url', { url: 'https://' }],
  ['url not a URL', 'url', { url: 'not a url' }],
  ['url with user and password', 'url', { url: 'https://user:pw@receiver.example.com/' }],
  ['url with a user', 'url', { url: 'https://user@receiver.example.com/' }],
  ['url with an empty user-info', 'url', { url: 'https://@receiver.example.com/' }],
  ['url with a space', 'url', { url: 'https://receiver.example.com/a b' }],
  ['url with CR LF', 'url', { url: 'https://receiver.example.com/\r\nX-Injected: 1' }],
  ['url with a tab in the host', 'url', { url: 'https://rece\tiver.example.com/' }],
  ['url with a bad IPv6', 'url', { url: 'https://[::1/' }],
  ['url 256 characters', 'url', { url: LONG_URL.padEnd(256, 'p') }],
  ['url a number', 'url', { url: 443 }],
  ['url an array', 'url', { url: ['https://receiver.example.com/'] }],
  ['url an object', 'url', { url: { href: 'https://receiver.example.com/' } }],
  ['description 1001 characters', 'description', { description: 'd'.repeat(1001) }],
  ['description a number', 'description', { description: 5 }],
  ['description a boolean', 'description', { description: false }],
  ['description an array', 'description', { description: ['a'] }],
  ['description with NUL', 'description', { description: 'a\u0000b' }],
  ['description with a bell', 'description', { description: 'a\u0007b' }],
  ['events missing', 'events', { events: undefined }],
  ['events null', 'events', { events: null }],
  ['events empty', 'events', { events: [] }],
  ['events a string', 'events', { events: 'LICENCE_CREATED_SUCCESS' }],
  ['events an object', 'events', { events: { 0: 'LICENCE_CREATED_SUCCESS' } }],
  ['events unknown value', 'events', { events: ['LICENCE_DELETED'] }],
  ['events lower case', 'events', { events: ['licence_created_success'] }],
  ['events with null', 'events', { events: ['LICENCE_CREATED_SUCCESS', null] }],
  ['events with a number', 'events', { events: [1] }],
  ['events nested', 'events', { events: [['LICENCE_CREATED_SUCCESS']] }],
  ['active a string', 'active', { active: 'true' }],
  ['active a number', 'active', { active: 1 }],
  ['active null', 'active', { active: null }],
  ['active an array', 'active', { active: [true] }],
  ['headerName empty', 'headerName', { headerName: '' }],
  ['headerName with a space', 'headerName', { headerName: 'X Key' }],
  ['headerName with a colon', 'headerName', { headerName: 'X-Key:' }],
  ['headerName with CR LF', 'headerName', { headerName: 'X-Key\r\nX-Other' }],
  ['headerName non-ASCII', 'headerName', { headerName: 'X-Clé' }],
  ['headerName with parentheses', 'headerName', { headerName: '(x)' }],
  ['headerName Host', 'headerName', { headerName: 'Host' }],
  ['headerName content-type', 'headerName', { headerName: 'content-type' }],
  ['headerName CONTENT-LENGTH', 'headerName', { headerName: 'CONTENT-LENGTH' }],
  ['headerName Connection', 'headerName', { headerName: 'Connection' }],
  ['headerName Transfer-Encoding', 'headerName', { headerName: 'Transfer-Encoding' }],
  ['headerName User-Agent', 'headerName', { headerName: 'User-Agent' }],
  ['headerName 256 characters', 'headerName', { headerName: 'h'.repeat(256) }],
  ['headerName a number', 'headerName', { headerName: 5 }],
  ['headerName an array', 'headerName', { headerName: ['X-Key'] }],
  ['headerValue with CR LF', 'headerValue', { headerName: 'X-Key', headerValue: 'a\r\nX-Injected: 1' }],
  ['headerValue with LF', 'headerValue', { headerName: 'X-Key', headerValue: 'a\nb' }],
  ['headerValue with CR', 'headerValue', { headerName: 'X-Key', headerValue: 'a\rb' }],
  ['headerValue with NUL', 'headerValue', { headerName: 'X-Key', headerValue: 'a\u0000b' }],
  ['headerValue with a tab', 'headerValue', { headerName: 'X-Key', headerValue: 'a\tb' }],
  ['headerValue non-ASCII', 'headerValue', { headerName: 'X-Key', headerValue: 'naïve€' }],
  ['headerValue empty', 'headerValue', { headerName: 'X-Key', headerValue: '' }],
  ['headerValue 256 characters', 'headerValue', { headerName: 'X-Key', headerValue: 'v'.repeat(256) }],
  ['headerValue a number', 'headerValue', { headerName: 'X-Key', headerValue: 12345 }],
  ['headerValue a boolean', 'headerValue', { headerName: 'X-Key', headerValue: true }],
  ['headerValue an array', 'headerValue', { headerName: 'X-Key', headerValue: ['v'] }],
  ['headerValue without headerName', 'headerValue', { headerValue: 'v' }],
  ['an unknown field', 'secret', { secret: 'x' }],
  ['an unknown field differing only in case', 'headervalue', { headerName: 'X-Key', headervalue: 'v' }],
  ['a snake_case field', 'header_value', { header_value: 'v' }],
];

/** Raw JSON texts: numbers JSON.stringify cannot write, and bodies that are not an object. */
const RAW_BODIES: Array<[string, string, string | undefined]> = [
  [
    'name 1e309',
    '{"name":1e309,"url":"https://r.example.com/","events":["LICENCE_CREATED_SUCCESS"]}',
    'name',
  ],
  [
    'name 99999999999999999999',
    '{"name":99999999999999999999,"url":"https://r.example.com/","events":["LICENCE_CREATED_SUCCESS"]}',
    'name',
  ],
  [
    'active 1e309',
    '{"name":"n","url":"https://r.example.com/","events":["LICENCE_CREATED_SUCCESS"],"active":1e309}',
    'active',
  ],
  [
    '__proto__ key',
    '{"name":"n","url":"https://r.example.com/","events":["LICENCE_CREATED_SUCCESS"],"__proto__":{"x":1}}',
    undefined,
  ],
  [
    'constructor.prototype key',
    '{"name":"n","url":"https://r.example.com/","events":["LICENCE_CREATED_SUCCESS"],"constructor":{"prototype":{"x":1}}}',
    undefined,
  ],
  ['a JSON array', '[{"name":"n"}]', undefined],
  ['a JSON string', '"name"', undefined],
  ['a JSON number', '42', undefined],
  ['JSON null', 'null', undefined],
  ['malformed JSON', '{"name":', undefined],
  ['an empty body', '', undefined],
];

describe('Webhook subscriptions: bad input', () => {
  let t: TestApp;
  let partner: TestUser;
  let admin: TestUser;
  let existing: { id: number };
  let before: { get: string; count: number; stored: unknown };

  const snapshot = async () => ({
    get: JSON.stringify((await t.http().get(`${PATH}/${existing.id}`).set(bearer(partner)).expect(200)).body),
    count: (await t.http().get(PATH).set(bearer(partner)).expect(200)).body.totalElements as number,
    stored: await t.dataSource.query('SELECT * FROM subscriptions ORDER BY id'),
  });

  beforeAll(async () => {
    t = await startTestApp();
    partner = await t.createUser();
    admin = await t.createUser({ admin: true });
    existing = (
      await t
        .http()
        .post(PATH)
        .set(bearer(partner))
        .send({ ...valid(), description: 'keep me', headerName: 'X-Key', headerValue: 'keep-secret' })
        .expect(200)
    ).body;
    before = await snapshot();
  });
  afterAll(async () => {
    await t?.close();
  });

  describe('bodies', () => {
    it.each(BAD_BODIES)('POST with %s is 400 naming %s', async (_name, field, overrides) => {
      const res = await t
        .http()
        .post(PATH)
        .set(bearer(partner))
        .send({ ...valid(), ...overrides });
      expectFieldError(res, PATH, field);
    });

    it.each(BAD_BODIES)('PUT with %s is 400 naming %s', async (_name, field, overrides) => {
      const path = `${PATH}/${existing.id}`;
      const res = await t
        .http()
        .put(path)
        .set(bearer(partner))
        .send({ ...valid(), ...overrides });
      expectFieldError(res, path, field);
    });

    it.each(RAW_BODIES)('POST and PUT with %s are 4xx', async (_name, raw, field) => {
      for (const req of [t.http().post(PATH), t.http().put(`${PATH}/${existing.id}`)]) {
        const res = await req.set(bearer(partner)).set('content-type', 'application/json').send(raw);
        expectClientError(res, req.url.replace(t.url, ''));
        if (field) expect(res.body.errors.map((e: { field: string }) => e.field)).toContain(field);
      }
    });

    it('reports every bad field of one body', async () => {
      const res = await t
        .http()
        .post(PATH)
        .set(bearer(partner))
        .send({ name: '', url: 'http://x', events: [], active: 'yes', extra: 1 });
      expectFieldError(res, PATH, 'name');
      expect(res.body.errors.map((e: { field: string }) => e.field).sort()).toEqual([
        'active',
        'events',
        'extra',
        'name',
        'url',
      ]);
      expect(res.text).not.toContain('http://x'); // values are never echoed
    });

    it.each([
      ['text/plain', 'name=x'],
      ['application/x-www-form-urlencoded', 'name=x&url=https%3A%2F%2Fr.example.com'],
    ])('a %s body is 4xx', async (type, payload) => {
      const res = await t.http().post(PATH).set(bearer(partner)).set('content-type', type).send(payload);
      expectClientError(res, PATH);
    });

    it('a body over 1 MB is 413', async () => {
      const res = await t
        .http()
        .post(PATH)
        .set(bearer(partner))
        .send({ ...valid(), description: 'd'.repeat(1_100_000) });
      expectClientError(res, PATH);
      expect(res.status).toBe(413);
    });

    it.each([
      ['a 255-character name', { name: 'n'.repeat(255) }],
      ['a name of 255 emoji (code points, as PostgreSQL counts)', { name: '🚀'.repeat(255) }],
      ['a unicode name', { name: 'Zürich 東京 Ελληνικά 🚀 café' }],
      ['SQL in the name', { name: "'); DROP TABLE subscriptions; --" }],
      ['LIKE metacharacters in the name', { name: '100%_\\ done' }],
      ['a 1000-character description', { description: 'd'.repeat(1000) }],
      ['a multi-line description', { description: 'a\r\nb\tc' }],
      ['a 255-character url', { url: LONG_URL.padEnd(255, 'p') }],
      ['a url with port, query and fragment', { url: 'https://r.example.com:8443/h?a=1&b=%20#f' }],
      ['an upper-case scheme', { url: 'HTTPS://R.EXAMPLE.COM/h' }],
      ['an IDN host', { url: 'https://bücher.example/h' }],
      [
        'a 255-character header name and value',
        { headerName: 'h'.repeat(255), headerValue: 'v'.repeat(255) },
      ],
      ['a token header name with symbols', { headerName: "X-!#$%&'*+.^_`|~1", headerValue: 'Bearer abc==' }],
      ['an Authorization header', { headerName: 'Authorization', headerValue: 'Bearer abc' }],
      ['a headerName alone', { headerName: 'X-Flag' }],
      ['null optional fields', { description: null, headerName: null, headerValue: null }],
    ])('accepts %s, stored as given', async (_name, overrides) => {
      const body: Record<string, unknown> = { ...valid(), ...overrides };
      const res = await t.http().post(PATH).set(bearer(partner)).send(body).expect(200);
      const { headerValue: _hv, ...visible } = body;
      expect(res.body).toMatchObject({ ...visible, description: body.description ?? null });
      const get = await t.http().get(`${PATH}/${res.body.id}`).set(bearer(partner)).expect(200);
      expect(get.body).toEqual(res.body);
      await t.http().delete(`${PATH}/${res.body.id}`).set(bearer(partner)).expect(200);
    });
  });

  describe('query parameters', () => {
    const bad: Array<[string, string]> = [
      ['page', '-1'],
      ['page', '1.5'],
      ['page', 'abc'],
      ['page', ''],
      ['page', '1e3'],
      ['page', '1e309'],
      ['page', '0x10'],
      ['page', '+1'],
      ['page', ' 1'],
      ['page', '٣'],
      ['size', '0'],
      ['size', '101'],
      ['size', '-1'],
      ['size', '2.5'],
      ['size', ''],
      ['size', 'abc'],
      ['size', '1e2'],
      ['size', '99999999999999999999'],
      ['size', '1e309'],
      ['sort', 'unknown'],
      ['sort', 'name,sideways'],
      ['sort', "name'; --"],
      ['index', 'i'.repeat(256)],
      ['index', 'a\u0000b'],
      ['index', 'a\u0001b'],
      ['index', 'a\nb'],
      ['unknown', '1'],
      ['headerValue', 'x'],
    ];

    it.each(bad)('GET list with %s=%p is 400 naming it', async (field, value) => {
      const res = await t
        .http()
        .get(PATH)
        .set(bearer(partner))
        .query({ [field]: value });
      expectFieldError(res, PATH, field);
    });

    it.each([
      ['page', '-1'],
      ['page', '1.5'],
      ['page', '1e20'],
      ['size', '0'],
      ['size', '101'],
      ['size', '1e309'],
      ['active', 'maybe'],
      ['unknown', '1'],
    ])('GET active with %s=%p is 400 naming it', async (field, value) => {
      const res = await t
        .http()
        .get(`${PATH}/active`)
        .set(bearer(partner))
        .query({ [field]: value });
      expectFieldError(res, `${PATH}/active`, field);
    });

    it.each([PATH, `${PATH}/active`])(
      '%s answers any page of digits, however large, with 200 and an empty page',
      async (path) => {
        for (const page of ['2147483648', '99999999999', '99999999999999999999', '9'.repeat(1000)]) {
          const res = await t.http().get(path).set(bearer(partner)).query({ page }).expect(200);
          expect(res.body).toMatchObject({ content: [], empty: true, last: true, first: false });
          expect(res.text).toContain(`"number":${page},`);
          expect(res.body._links.self.href).toBe(`${path}?size=20&page=${page}`);
        }
      },
    );

    it.each([
      ['page', 'page=1&page=2'],
      ['size', 'size=10&size=20'],
      ['index', 'index=a&index=b'],
      ['page[]', 'page[]=1'],
      ['index[]', 'index[]=a'],
    ])('GET list with a repeated or array %s is 400 naming it', async (field, query) => {
      const res = await t.http().get(`${PATH}?${query}`).set(bearer(partner));
      expectFieldError(res, PATH, field);
    });

    it.each([
      ['tenant', ''],
      ['tenant', 't'.repeat(256)],
      ['tenant', 'a\u0000b'],
    ])("an administrator's %s=%p is 400 naming it", async (field, value) => {
      const res = await t
        .http()
        .get(PATH)
        .set(bearer(admin))
        .query({ [field]: value });
      expectFieldError(res, PATH, field);
    });

    it("an administrator's repeated tenant is 400", async () => {
      const res = await t.http().get(`${PATH}?tenant=a&tenant=b`).set(bearer(admin));
      expectFieldError(res, PATH, 'tenant');
    });

    it.each([
      ['unicode', 'Zürich 🚀'],
      ['quotes and SQL', "' OR 1=1 --"],
      ['LIKE metacharacters', '%_\\'],
      ['255 characters', 'i'.repeat(255)],
    ])('an index with %s is 200', async (_name, index) => {
      await t.http().get(PATH).set(bearer(partner)).query({ index }).expect(200);
    });
  });

  describe('ids', () => {
    /** GET, PUT (with a valid body) and DELETE of `path`, one after the other. */
    const everyMethod = async (path: string, user: TestUser): Promise<Response[]> => [
      await t.http().get(path).set(bearer(user)),
      await t.http().put(path).set(bearer(user)).send(valid()),
      await t.http().delete(path).set(bearer(user)),
    ];

    const ids = ['0', '00', '-1', '+1', 'abc', '1.5', '1e3', '0x10', '%201', '1abc', '%00', '1e309'];

    it.each(ids)('GET, PUT and DELETE /%s are 400 naming id', async (id) => {
      const path = `${PATH}/${id}`;
      const decoded = decodeURIComponent(path);
      for (const res of await everyMethod(path, partner)) {
        expect([path, decoded]).toContain(res.body.path);
        expectFieldError(res, res.body.path, 'id');
      }
    });

    it.each([
      ['2147483648', '2147483648'],
      ['99999999999999999999', '99999999999999999999'],
      ['0002147483648', '2147483648'],
    ])(
      'GET, PUT and DELETE /%s, past the integer range, are the 404 of any missing id',
      async (id, digits) => {
        const path = `${PATH}/${id}`;
        for (const user of [partner, admin]) {
          for (const res of await everyMethod(path, user)) {
            expectClientError(res, path);
            expect(res.status).toBe(404);
            expect(res.body.error).toBe('Not Found');
            expect(res.body.message).toBe(`Subscription ${digits} not found`);
            expect(res.body.errors).toBeUndefined();
          }
        }
        const missing = await t.http().get(`${PATH}/2147483647`).set(bearer(partner)).expect(404);
        expect(missing.body.message).toBe('Subscription 2147483647 not found');
      },
    );

    it('an id with leading zeros names the same subscription', async () => {
      const created = await t.http().post(PATH).set(bearer(partner)).send(valid()).expect(200);
      const got = await t
        .http()
        .get(`${PATH}/000000000000${created.body.id}`)
        .set(bearer(partner))
        .expect(200);
      expect(got.body).toEqual(created.body);
      await t.http().delete(`${PATH}/0${created.body.id}`).set(bearer(partner)).expect(200);
      await t.http().get(`${PATH}/${created.body.id}`).set(bearer(partner)).expect(404);
    });

    it('an id far too long for a route parameter is 414 with the error body', async () => {
      const path = `${PATH}/${'9'.repeat(200)}`;
      for (const res of await everyMethod(path, partner)) {
        expectClientError(res, path);
        expect(res.status).toBe(414);
      }
    });

    it('an id with a malformed %-escape is 400 with the error body', async () => {
      const path = `${PATH}/%zz`;
      const res = await t.http().get(path).set(bearer(partner));
      expectClientError(res, path);
      expect(res.status).toBe(400);
      expect(res.body.message).toBe('Malformed URL');
    });
  });

  it('left the stored data unchanged after every bad request', async () => {
    const after = await snapshot();
    expect(after).toEqual(before);
  });
});

describe('Webhook subscriptions: private-network URLs', () => {
  let strict: TestApp;
  let partner: TestUser;

  const PRIVATE = [
    'https://127.0.0.1/hook',
    'https://127.1.2.3:8443/hook',
    'https://2130706433/hook',
    'https://0x7f.0.0.1/hook',
    'https://0.0.0.0/hook',
    'https://10.0.0.1/hook',
    'https://172.16.0.1/hook',
    'https://172.31.255.255/hook',
    'https://192.168.1.10/hook',
    'https://100.64.0.1/hook',
    'https://169.254.169.254/latest/meta-data',
    'https://localhost/hook',
    'https://LOCALHOST.:8443/hook',
    'https://api.localhost/hook',
    'https://[::1]/hook',
    'https://[::]/hook',
    'https://[0:0:0:0:0:0:0:1]/hook',
    'https://[::ffff:127.0.0.1]/hook',
    'https://[::ffff:10.1.2.3]/hook',
    'https://[::ffff:a9fe:a9fe]/hook',
    'https://[fc00::1]/hook',
    'https://[fd12:3456::1]/hook',
    'https://[fe80::1]/hook',
    'https://[febf:ffff::1]/hook',
    'https://[::127.0.0.1]/hook',
    'https://[64:ff9b::a9fe:a9fe]/hook',
    'https://[2002:7f00:1::1]/hook',
    'https://[2001:0:4136:e378:8000:63bf:3fff:fdd2]/hook',
    'https://[fec0::1]/hook',
  ];
  const PUBLIC = [
    'https://8.8.8.8/hook',
    'https://172.32.0.1/hook',
    'https://100.128.0.1/hook',
    'https://[2606:4700:4700::1111]/hook',
    'https://[::ffff:8.8.8.8]/hook',
    'https://receiver.example.com/hook',
    'https://localhost.example.com/hook',
  ];

  beforeAll(async () => {
    strict = await startTestApp({ WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'false' });
    partner = await strict.createUser();
  });
  afterAll(async () => {
    await strict?.close();
  });

  it.each(PRIVATE)('POST with %s is 400 naming url', async (url) => {
    const res = await strict
      .http()
      .post(PATH)
      .set(bearer(partner))
      .send({ ...valid(), url });
    expectFieldError(res, PATH, 'url');
    expect(res.body.errors).toEqual([
      { field: 'url', message: 'url must not point to a private, loopback or link-local address' },
    ]);
  });

  it('PUT to a private address is 400 and changes nothing', async () => {
    const created = (
      await strict
        .http()
        .post(PATH)
        .set(bearer(partner))
        .send({ ...valid(), url: 'https://receiver.example.com/ok' })
        .expect(200)
    ).body;
    for (const url of PRIVATE) {
      const res = await strict
        .http()
        .put(`${PATH}/${created.id}`)
        .set(bearer(partner))
        .send({ ...valid(), url });
      expectFieldError(res, `${PATH}/${created.id}`, 'url');
    }
    const get = await strict.http().get(`${PATH}/${created.id}`).set(bearer(partner)).expect(200);
    expect(get.body).toEqual(created);
  });

  it.each(PUBLIC)('POST with %s is 200', async (url) => {
    const res = await strict
      .http()
      .post(PATH)
      .set(bearer(partner))
      .send({ ...valid(), url })
      .expect(200);
    expect(res.body.url).toBe(url);
  });

  describe('with WEBHOOK_ALLOW_PRIVATE_NETWORKS=true', () => {
    let open: TestApp;
    let user: TestUser;
    beforeAll(async () => {
      open = await startTestApp({ WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true' });
      user = await open.createUser();
    });
    afterAll(async () => {
      await open?.close();
    });

    it.each([
      'https://127.0.0.1:8443/hook',
      'https://localhost/hook',
      'https://[::1]/hook',
      'https://10.0.0.1/',
    ])('POST with %s is 200', async (url) => {
      await open
        .http()
        .post(PATH)
        .set(bearer(user))
        .send({ ...valid(), url })
        .expect(200);
    });

    it('still refuses http:// and user-info', async () => {
      for (const url of ['http://127.0.0.1/', 'https://u:p@127.0.0.1/']) {
        const res = await open
          .http()
          .post(PATH)
          .set(bearer(user))
          .send({ ...valid(), url });
        expectFieldError(res, PATH, 'url');
      }
    });
  });
});
