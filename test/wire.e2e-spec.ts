import { randomBytes, randomInt } from 'node:crypto';
import http from 'node:http';
import net from 'node:net';
import type { Test as SuperTest } from 'supertest';
import { readAnswer } from './support/raw-http';
import { startTestApp, TestApp, TestUser } from './support/test-app';

const HAL = 'application/hal+json;charset=UTF-8';
const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;
const ERROR_KEYS = ['error', 'message', 'path', 'requestId', 'status', 'timestamp'];
const BODY_LIMIT = 1_048_576;
/** A stack frame, a Node error class name at the start of a line, or SQL: never in a response. */
const LEAKS = /(\bat .+[.:]\d+:\d+)|(node_modules)|(\w+Error:)|(\bSELECT\b|\bINSERT\b|\bFROM\b|\brelation\b)/;

interface Raw {
  status: number;
  headers: http.IncomingHttpHeaders;
  text: string;
}

/** A request sent by hand, for what supertest would not send (chunked bodies, exact bytes). */
function raw(
  url: string,
  options: { method?: string; path: string; headers?: Record<string, string | number>; chunks?: Buffer[] },
): Promise<Raw> {
  return new Promise((resolve, reject) => {
    const req = http.request(
      `${url}${options.path}`,
      { method: options.method ?? 'GET', headers: options.headers },
      (res) => void readAnswer(res).then(resolve, reject),
    );
    // The server may answer 413 and close while we are still writing: the answer is what counts.
    req.on('error', (error) =>
      (error as NodeJS.ErrnoException).code === 'EPIPE' ? undefined : reject(error),
    );
    for (const chunk of options.chunks ?? []) req.write(chunk);
    req.end();
  });
}

/** Contract section 4 for an error response: exact keys, reason phrase, request id, no leaks. */
function expectErrorBody(
  res: { status: number; headers: Record<string, unknown>; text: string },
  status: number,
  path: string,
  withErrors = false,
) {
  expect(res.status).toBe(status);
  expect(res.headers['content-type']).toBe(HAL);
  const body = JSON.parse(res.text);
  expect(Object.keys(body).sort()).toEqual(withErrors ? [...ERROR_KEYS, 'errors'].sort() : ERROR_KEYS);
  expect(body.status).toBe(status);
  expect(body.error).toBe(http.STATUS_CODES[status]);
  expect(typeof body.message).toBe('string');
  expect(body.message.length).toBeGreaterThan(0);
  expect(body.path).toBe(path);
  expect(body.requestId).toBe(res.headers['x-request-id']);
  expect(body.timestamp).toMatch(ISO);
  expect(Math.abs(Date.parse(body.timestamp) - Date.now())).toBeLessThan(60_000);
  expect(res.text).not.toMatch(LEAKS);
  if (withErrors) {
    expect(Array.isArray(body.errors)).toBe(true);
    expect(body.errors.length).toBeGreaterThan(0);
    for (const e of body.errors) expect(Object.keys(e).sort()).toEqual(['field', 'message']);
  }
  return body;
}

describe('wire conventions (contract section 4)', () => {
  let t: TestApp;
  /**
   * The same service with an API limit of 2 a minute, for the 429s: a second instance on t's
   * database and secret (Passport's strategy registry is one per process).
   */
  let limited: TestApp;
  let admin: TestUser;
  let partner: TestUser;

  beforeAll(async () => {
    t = await startTestApp({ TRUST_PROXY: 'true' });
    limited = await startTestApp(
      { TRUST_PROXY: 'true', RATE_LIMIT_API_PER_MINUTE: '2', JWT_SECRET: t.env.JWT_SECRET },
      { databaseUrl: t.databaseUrl },
    );
    admin = await t.createUser({ admin: true });
    partner = await t.createUser();
  });
  afterAll(async () => {
    await limited?.close();
    await t?.close();
  });

  /** A client address of its own (X-Forwarded-For, trusted here), unused by any other run. */
  const ip = () => `10.${randomInt(256)}.${randomInt(256)}.${1 + randomInt(254)}`;

  /** One request of every kind of response the API gives, each returning the supertest response. */
  const kinds: Array<
    [
      string,
      number,
      (id?: string) => Promise<{ status: number; headers: Record<string, string>; text: string }>,
    ]
  > = [
    ['200 health/live', 200, (id) => withId(t.http().get('/health/live').set('x-forwarded-for', ip()), id)],
    ['200 health/ready', 200, (id) => withId(t.http().get('/health/ready').set('x-forwarded-for', ip()), id)],
    [
      '200 login',
      200,
      (id) =>
        withId(
          t
            .http()
            .post('/auth/login')
            .set('x-forwarded-for', ip())
            .send({ email: admin.email, password: admin.password }),
          id,
        ),
    ],
    [
      '200 /auth/me',
      200,
      async (id) =>
        withId(
          t.http().get('/auth/me').set('x-forwarded-for', ip()).set('authorization', `Bearer ${admin.token}`),
          id,
        ),
    ],
    [
      '201 create user',
      201,
      async (id) =>
        withId(
          t
            .http()
            .post('/admin/users')
            .set('x-forwarded-for', ip())
            .set('authorization', `Bearer ${admin.token}`)
            .send({
              email: `wire-${randomBytes(5).toString('hex')}@example.com`,
              password: 'wire-password-1',
              role: 'ROLE_CLIENT',
              tenant: 'wire',
              partnerId: 3,
              partnerName: 'Wire',
            }),
          id,
        ),
    ],
    [
      '400 validation',
      400,
      (id) => withId(t.http().post('/auth/login').set('x-forwarded-for', ip()).send({}), id),
    ],
    [
      '400 malformed JSON',
      400,
      (id) =>
        withId(
          t
            .http()
            .post('/auth/login')
            .set('x-forwarded-for', ip())
            .set('content-type', 'application/json')
            .send('{"email": '),
          id,
        ),
    ],
    ['401 no token', 401, (id) => withId(t.http().get('/auth/me').set('x-forwarded-for', ip()), id)],
    [
      '401 bad login',
      401,
      (id) =>
        withId(
          t
            .http()
            .post('/auth/login')
            .set('x-forwarded-for', ip())
            .send({ email: admin.email, password: 'wrong-password' }),
          id,
        ),
    ],
    [
      '403 non-administrator',
      403,
      (id) =>
        withId(
          t
            .http()
            .get('/admin/users')
            .set('x-forwarded-for', ip())
            .set('authorization', `Bearer ${partner.token}`),
          id,
        ),
    ],
    [
      '404 unknown route',
      404,
      (id) => withId(t.http().get('/no/such/route').set('x-forwarded-for', ip()), id),
    ],
    [
      '404 unknown record',
      404,
      async (id) =>
        withId(
          t
            .http()
            .get('/admin/users/2147483000')
            .set('x-forwarded-for', ip())
            .set('authorization', `Bearer ${admin.token}`),
          id,
        ),
    ],
    [
      '413 body too large',
      413,
      (id) =>
        withId(
          t
            .http()
            .post('/auth/login')
            .set('x-forwarded-for', ip())
            .set('content-type', 'application/json')
            .send(JSON.stringify({ email: 'a@example.com', password: 'x'.repeat(BODY_LIMIT) })),
          id,
        ),
    ],
    [
      '415 unsupported media type',
      415,
      (id) =>
        withId(
          t
            .http()
            .post('/auth/login')
            .set('x-forwarded-for', ip())
            .set('content-type', 'text/csv')
            .send('a,b'),
          id,
        ),
    ],
    [
      '429 rate limited',
      429,
      async (id) => {
        const from = ip();
        await limited.http().get('/auth/me').set('x-forwarded-for', from).expect(401);
        await limited.http().get('/auth/me').set('x-forwarded-for', from).expect(401);
        return withId(limited.http().get('/auth/me').set('x-forwarded-for', from), id);
      },
    ],
  ];

  async function withId(req: SuperTest, id?: string) {
    if (id !== undefined) req.set('x-request-id', id);
    const res = await req;
    return { status: res.status, headers: res.headers as Record<string, string>, text: res.text };
  }

  describe.each(kinds)('%s', (_name, status, send) => {
    it('echoes a valid X-Request-Id and sends the HAL content type', async () => {
      const id = `req-${randomBytes(6).toString('hex')}.A_z-9`;
      const res = await send(id);
      expect(res.status).toBe(status);
      expect(res.headers['x-request-id']).toBe(id);
      expect(res.headers['content-type']).toBe(HAL);
      expect(res.text.length).toBeGreaterThan(0);
      expect(res.text).not.toMatch(LEAKS);
      if (status >= 400) expect(JSON.parse(res.text).requestId).toBe(id);
    });

    it('replaces an invalid X-Request-Id with a new UUID', async () => {
      const bad = 'has spaces in it';
      const res = await send(bad);
      expect(res.status).toBe(status);
      expect(res.headers['x-request-id']).toMatch(UUID);
      if (status >= 400) expect(JSON.parse(res.text).requestId).toBe(res.headers['x-request-id']);
    });

    it('sends a new UUID when there is no X-Request-Id', async () => {
      const res = await send();
      expect(res.status).toBe(status);
      expect(res.headers['x-request-id']).toMatch(UUID);
    });

    if (status >= 400) {
      it('has the error body: exact keys, reason phrase, timestamp format, no stack or SQL', async () => {
        const res = await send();
        const url = new URL(`http://x${JSON.parse(res.text).path}`);
        expectErrorBody(res, status, url.pathname, _name === '400 validation');
      });
    }
  });

  it.each([
    ['1 character', 'a', true],
    ['128 characters', 'A'.repeat(64) + 'z._-'.repeat(16), true],
    ['every allowed character', 'ABCXYZabcxyz0123456789._-', true],
    ['129 characters', 'a'.repeat(129), false],
    ['spaces', 'a b', false],
    ['a slash', 'a/b', false],
    ['a colon', 'a:b', false],
    ['latin-1 letters', 'caf\u00e9', false],
    ['a comma (two values)', 'a,b', false],
  ])('X-Request-Id with %s is %s', async (_name, id, kept) => {
    const res = await t.http().get('/health/live').set('x-request-id', id).expect(200);
    if (kept) expect(res.headers['x-request-id']).toBe(id);
    else expect(res.headers['x-request-id']).toMatch(UUID);
  });

  it('replaces an X-Request-Id sent twice (joined with a comma) and an empty one', async () => {
    const twice = await raw(t.url, {
      path: '/health/live',
      headers: { 'x-request-id': ['one', 'two'] as unknown as string },
    });
    expect(twice.headers['x-request-id']).toMatch(UUID);
    const empty = await raw(t.url, { path: '/health/live', headers: { 'x-request-id': '' } });
    expect(empty.headers['x-request-id']).toMatch(UUID);
  });

  it('gives every request its own new id', async () => {
    const ids = new Set<string>();
    for (let i = 0; i < 5; i++) ids.add((await t.http().get('/health/live')).headers['x-request-id']);
    expect(ids.size).toBe(5);
  });

  describe('body size (spec, Limits: 1 MB)', () => {
    const body = (size: number) => {
      // {"email":"a@example.com","password":"xxx…"} padded to exactly `size` bytes.
      const head = '{"email":"a@example.com","password":"';
      return Buffer.from(head + 'x'.repeat(size - head.length - 2) + '"}');
    };

    it('accepts a body of exactly 1 MB (then refuses its 1 MB password as a field, 400)', async () => {
      const payload = body(BODY_LIMIT);
      expect(payload.length).toBe(BODY_LIMIT);
      const res = await raw(t.url, {
        method: 'POST',
        path: '/auth/login',
        headers: {
          'content-type': 'application/json',
          'content-length': payload.length,
          'x-forwarded-for': ip(),
        },
        chunks: [payload],
      });
      const err = expectErrorBody(res, 400, '/auth/login', true);
      expect(err.errors.map((e: { field: string }) => e.field)).toEqual(['password']);
    });

    it('answers one byte more with 413 and the error body', async () => {
      const payload = body(BODY_LIMIT + 1);
      const res = await raw(t.url, {
        method: 'POST',
        path: '/auth/login',
        headers: {
          'content-type': 'application/json',
          'content-length': payload.length,
          'x-request-id': 'too-large-1',
          'x-forwarded-for': ip(),
        },
        chunks: [payload],
      });
      const err = expectErrorBody(res, 413, '/auth/login');
      expect(res.headers['x-request-id']).toBe('too-large-1');
      expect(err.error).toBe('Payload Too Large');
      expect(err.message).toBe('Request body is larger than 1 MB');
    });

    it('answers a chunked body over 1 MB (no Content-Length) with 413', async () => {
      const chunk = Buffer.alloc(64 * 1024, 'x');
      const res = await raw(t.url, {
        method: 'POST',
        path: '/auth/login',
        headers: {
          'content-type': 'application/json',
          'transfer-encoding': 'chunked',
          'x-forwarded-for': ip(),
        },
        chunks: [
          Buffer.from('{"email":"a@example.com","password":"'),
          ...Array(20).fill(chunk),
          Buffer.from('"}'),
        ],
      });
      expectErrorBody(res, 413, '/auth/login');
    });

    it('answers 413 on an authenticated route before anything else runs', async () => {
      const res = await t
        .http()
        .post('/admin/users')
        .set('authorization', `Bearer ${admin.token}`)
        .set('x-forwarded-for', ip())
        .set('content-type', 'application/json')
        .send(JSON.stringify({ padding: 'y'.repeat(2 * BODY_LIMIT) }));
      expectErrorBody(res, 413, '/admin/users');
    });
  });

  describe('malformed and odd bodies', () => {
    it.each([
      ['truncated JSON', '{"email": "a@example.com", "password": '],
      ['single quotes', "{'email': 'a'}"],
      ['trailing comma', '{"email": "a@example.com",}'],
      ['bare word', 'hello'],
      ['a NUL byte', '{"email":"a\u0000'],
    ])('answers %s with 400 and the error body, without `errors`', async (_name, payload) => {
      const res = await t
        .http()
        .post('/auth/login')
        .set('x-forwarded-for', ip())
        .set('content-type', 'application/json')
        .send(payload);
      const body = expectErrorBody(res, 400, '/auth/login');
      expect(body.message).toBe('Malformed JSON in request body');
      expect(res.text).not.toContain(payload.slice(0, 12));
    });

    it('answers a JSON body with a prototype-pollution key with 400, and stays healthy', async () => {
      const res = await t
        .http()
        .post('/auth/login')
        .set('x-forwarded-for', ip())
        .set('content-type', 'application/json')
        .send('{"email":"a@example.com","password":"xxxxxxxx","__proto__":{"admin":true}}');
      expect(res.status).toBe(400);
      expect(res.headers['content-type']).toBe(HAL);
      await t.http().get('/health/live').expect(200);
    });
  });

  it('answers a body of another media type with 415 and the error body', async () => {
    const res = await t
      .http()
      .post('/auth/login')
      .set('x-forwarded-for', ip())
      .set('content-type', 'text/csv')
      .send('email,password');
    const body = expectErrorBody(res, 415, '/auth/login');
    expect(body.message).toBe('Content-Type must be application/json');
  });

  it.each(['/%', '/admin/users/%ZZ', '/auth/%E0%A4%A'])(
    'answers the malformed URL %s with 400, the error body and a request id',
    async (path) => {
      const res = await raw(t.url, { path, headers: { 'x-request-id': 'bad-url-1' } });
      const body = expectErrorBody(res, 400, path);
      expect(res.headers['x-request-id']).toBe('bad-url-1');
      expect(body.message).toBe('Malformed URL');
    },
  );

  describe('unknown routes', () => {
    it.each([
      ['GET', '/nope'],
      ['GET', '/auth'],
      ['POST', '/auth/me'],
      ['PUT', '/auth/login'],
      ['DELETE', '/health/live'],
      ['GET', '/admin/users/1/extra'],
      ['GET', '/%E2%82%AC'],
    ])('%s %s is 404 with the error body', async (method, path) => {
      const res = await raw(t.url, { method, path, headers: { 'x-forwarded-for': ip() } });
      expectErrorBody(res, 404, path);
    });

    it('keeps the query string out of `path`', async () => {
      const res = await t.http().get('/nope?secret=abc').set('x-forwarded-for', ip());
      const body = expectErrorBody(res, 404, '/nope');
      expect(body.message).toBe('Cannot GET /nope');
      expect(res.text).not.toContain('secret=abc');
      expect(body.path).toBe('/nope');
    });
  });

  it('never sends a body type other than HAL JSON for the API', async () => {
    const res = await t.http().get('/health/live').set('accept', 'text/html');
    expect(res.headers['content-type']).toBe(HAL);
  });
});

describe('500: an unexpected failure (contract section 4)', () => {
  let t: TestApp;

  beforeAll(async () => {
    // No user-check cache: the next authenticated request reads the users table.
    t = await startTestApp({ USER_CACHE_TTL_MS: '0' });
  });
  afterAll(async () => {
    await t?.close();
  });

  it('answers with the generic error body, no SQL, no stack, and recovers', async () => {
    const user = await t.createUser();
    await t.http().get('/auth/me').set('authorization', `Bearer ${user.token}`).expect(200);
    // Break this file's own database under the running app.
    await t.dataSource.query('ALTER TABLE users RENAME TO users_gone');
    try {
      const res = await t
        .http()
        .get('/auth/me')
        .set('authorization', `Bearer ${user.token}`)
        .set('x-request-id', 'boom-500');
      const body = expectErrorBody(
        { status: res.status, headers: res.headers, text: res.text },
        500,
        '/auth/me',
      );
      expect(body).toMatchObject({
        status: 500,
        error: 'Internal Server Error',
        message: 'Internal server error',
        requestId: 'boom-500',
      });
      expect(res.headers['x-request-id']).toBe('boom-500');
      expect(res.text).not.toMatch(/users|password|query|postgres|typeorm/i);
      // A 500 at login too (the users table is where the hash is read).
      const login = await t.http().post('/auth/login').send({ email: user.email, password: user.password });
      expectErrorBody({ status: login.status, headers: login.headers, text: login.text }, 500, '/auth/login');
      expect(login.text).not.toContain(user.password);
    } finally {
      await t.dataSource.query('ALTER TABLE users_gone RENAME TO users');
    }
    await t.http().get('/auth/me').set('authorization', `Bearer ${user.token}`).expect(200);
  });
});

describe('requests the HTTP parser refuses (contract section 4)', () => {
  let t: TestApp;

  beforeAll(async () => {
    t = await startTestApp();
  });
  afterAll(async () => {
    await t?.close();
  });

  /** Writes raw bytes on a new connection and resolves with everything the server sent back. */
  const raw = (text: string) =>
    new Promise<string>((resolve, reject) => {
      const { port } = new URL(t.url);
      const socket = net.connect(Number(port), '127.0.0.1', () => socket.end(text));
      let answer = '';
      socket.on('data', (chunk: Buffer) => (answer += chunk.toString('latin1')));
      socket.on('close', () => resolve(answer));
      socket.on('error', reject);
    });

  it.each([
    ['not HTTP at all', 'HELLO THERE\r\n\r\n', 400, 'Bad Request', ''],
    [
      'headers over 16 KB',
      `GET /health/live HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(20_000)}\r\n\r\n`,
      431,
      'Request Header Fields Too Large',
      '/health/live',
    ],
  ])(
    'answers %s with the error body, HAL content type and a request id',
    async (_name, text, status, reason, path) => {
      const answer = await raw(text);
      const [head, body] = answer.split('\r\n\r\n');
      const lines = head.split('\r\n');
      expect(lines[0]).toBe(`HTTP/1.1 ${status} ${reason}`);
      const headers = Object.fromEntries(
        lines
          .slice(1)
          .map((l) => [l.slice(0, l.indexOf(':')).toLowerCase(), l.slice(l.indexOf(':') + 1).trim()]),
      );
      expect(headers['content-type']).toBe(HAL);
      expect(headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/);
      expect(JSON.parse(body)).toEqual({
        timestamp: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/),
        status,
        error: reason,
        message: expect.any(String),
        path,
        requestId: headers['x-request-id'],
      });
      await t.http().get('/health/live').expect(200); // the server goes on
    },
  );
});
