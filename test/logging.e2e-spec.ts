import { randomBytes } from 'node:crypto';
import { createRootLogger } from '../src/common/logging/logger';
import { LogCapture } from './support/log-capture';
import { startTestApp, TestApp } from './support/test-app';

const secret = (prefix: string) => `${prefix}-${randomBytes(8).toString('hex')}`;

describe('logs (contract section 1: one JSON object a line, the request id, no secrets)', () => {
  let t: TestApp;
  let capture: LogCapture;

  beforeAll(async () => {
    capture = new LogCapture();
    // NODE_ENV=production as in service (request logging on), with both secrets given.
    t = await startTestApp(
      { NODE_ENV: 'production', LOG_LEVEL: 'info', USER_CACHE_TTL_MS: '0' },
      { logDestination: capture },
    );
  });
  afterAll(async () => {
    await t?.close();
  });

  it('writes one JSON object per line, start-up lines included', () => {
    const lines = capture.lines();
    expect(lines.length).toBeGreaterThan(5);
    expect(capture.text.endsWith('\n')).toBe(true);
    for (const line of lines) {
      const record = JSON.parse(line);
      expect(typeof record).toBe('object');
      expect(Array.isArray(record)).toBe(false);
      expect(typeof record.level).toBe('number');
      expect(record.time).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/);
      expect(record.service).toBe('partner-integration-service');
      expect(typeof record.msg).toBe('string');
    }
    // Nest's own start-up lines go through the same logger.
    expect(
      capture.records().some((r) => r.context === 'RoutesResolver' || r.context === 'RouterExplorer'),
    ).toBe(true);
  });

  it('logs each request and its completion with the request id', async () => {
    const requestId = `log-${randomBytes(6).toString('hex')}`;
    await t.http().get('/health/live').set('x-request-id', requestId).expect(200);
    const mine = capture.records().filter((r) => r.requestId === requestId);
    expect(mine.map((r) => r.msg)).toEqual(expect.arrayContaining(['incoming request', 'request completed']));
    const done = mine.find((r) => r.msg === 'request completed')!;
    expect((done.res as { statusCode: number }).statusCode).toBe(200);
    expect(typeof done.responseTime).toBe('number');
  });

  it('gives log lines written inside a request (an unhandled error) the request id, the cause only in the log', async () => {
    const user = await t.createUser();
    await t.dataSource.query('ALTER TABLE users RENAME TO users_hidden');
    const requestId = `log-500-${randomBytes(6).toString('hex')}`;
    try {
      const res = await t
        .http()
        .get('/auth/me')
        .set('authorization', `Bearer ${user.token}`)
        .set('x-request-id', requestId)
        .expect(500);
      expect(res.text).not.toContain('users');
    } finally {
      await t.dataSource.query('ALTER TABLE users_hidden RENAME TO users');
    }
    const mine = capture.records().filter((r) => r.requestId === requestId);
    const failure = mine.find((r) => r.msg === 'unhandled error');
    expect(failure).toBeDefined();
    expect(failure!.level).toBe(50);
    const err = failure!.err as { type: string; message: string; stack: string; parameters?: unknown };
    expect(err.type).toBe('QueryFailedError');
    expect(err.message).toMatch(/users/);
    expect(err.stack).toMatch(/\n\s+at /);
    // The failed query's bound values are not logged.
    expect(err.parameters).toBe('[redacted]');
    expect(
      mine.some((r) => r.msg === 'request completed' && (r.res as { statusCode: number }).statusCode === 500),
    ).toBe(true);
  });

  it('never logs a password or a token: login, /auth/me, user creation and password change', async () => {
    const admin = await t.createUser({ admin: true });
    const password = secret('pw');
    const email = `${secret('log')}@example.com`;
    const created = await t
      .http()
      .post('/admin/users')
      .set('authorization', `Bearer ${admin.token}`)
      .send({ email, password, role: 'ROLE_PARTNER', tenant: 'logs', partnerId: 5, partnerName: 'Logs' })
      .expect(201);
    const login = await t.http().post('/auth/login').send({ email, password }).expect(200);
    const token = login.body.token as string;
    await t.http().get('/auth/me').set('authorization', `Bearer ${token}`).expect(200);
    await t.http().get('/auth/me').set('authorization', `Bearer ${token}x`).expect(401);
    const wrong = secret('wrong');
    await t.http().post('/auth/login').send({ email, password: wrong }).expect(401);
    // A validation failure carries the value inside class-validator's error: not logged either.
    const short = `S${randomBytes(2).toString('hex')}`;
    await t
      .http()
      .patch(`/admin/users/${created.body.id}`)
      .set('authorization', `Bearer ${admin.token}`)
      .send({ password: short })
      .expect(400);
    const next = secret('next');
    await t
      .http()
      .patch(`/admin/users/${created.body.id}`)
      .set('authorization', `Bearer ${admin.token}`)
      .send({ password: next })
      .expect(200);
    // The requests above were logged (so the checks below look at real lines).
    expect(capture.records().filter((r) => r.msg === 'request completed').length).toBeGreaterThan(5);
    for (const value of [password, token, token.split('.')[2], admin.token, wrong, short, next]) {
      expect(capture.text).not.toContain(value);
    }
    expect(capture.text).not.toContain('$argon2');
    expect(capture.text.toLowerCase()).not.toContain('bearer ');
  });

  it('logs a query-string value of token, access_token, password, secret or key (any case) as [REDACTED]', async () => {
    const user = await t.createUser();
    const requestId = `log-query-${randomBytes(6).toString('hex')}`;
    const hidden: [string, string][] = [
      ['access_token', user.token],
      ['Token', secret('t')],
      ['PASSWORD', secret('p')],
      ['secret', secret('s')],
      ['kEy', secret('k')],
      // A name written with a %-escape is the same parameter to the service.
      ['%74oken', secret('e')],
    ];
    const query = hidden.map(([name, value]) => `${name}=${encodeURIComponent(value)}`).join('&');
    await t
      .http()
      .get(`/auth/me?page=2&${query}&tokens=shown`)
      .set('authorization', `Bearer ${user.token}`)
      .set('x-request-id', requestId)
      .expect(200);
    const urls = capture
      .records()
      .filter((r) => r.requestId === requestId && r.req !== undefined)
      .map((r) => (r.req as { url: string }).url);
    const redacted = hidden.map(([name]) => `${name}=[REDACTED]`).join('&');
    expect(urls).toEqual([`/auth/me?page=2&${redacted}&tokens=shown`]);
    for (const [, value] of hidden) expect(capture.text).not.toContain(value);
  });

  it('never logs a subscription headerValue', async () => {
    const admin = await t.createUser({ admin: true });
    const headerValue = secret('hv');
    // Whatever the subscriptions endpoint answers, the value must not reach the log.
    await t
      .http()
      .post('/webhooks/subscriptions')
      .set('authorization', `Bearer ${admin.token}`)
      .send({
        name: 'logs',
        url: 'https://receiver.example.com/hook',
        events: ['LICENCE_CREATED_SUCCESS'],
        headerName: 'X-Shared-Secret',
        headerValue,
      });
    await t
      .http()
      .post('/webhooks/subscriptions')
      .set('authorization', `Bearer ${admin.token}`)
      .send({ name: 'logs', url: 'http://not-https.example.com', events: ['NOPE'], headerValue });
    expect(capture.text).not.toContain(headerValue);
  });

  it('redacts secrets by key wherever a log call passes them', () => {
    const out = new LogCapture();
    const logger = createRootLogger('info', out);
    const values = {
      password: secret('a'),
      token: secret('b'),
      headerValue: secret('c'),
      authorization: secret('d'),
      nested: secret('e'),
      header: secret('f'),
      parameters: secret('g'),
    };
    logger.info(
      {
        password: values.password,
        token: values.token,
        headerValue: values.headerValue,
        req: { headers: { authorization: `Bearer ${values.authorization}` } },
        body: { password: values.nested, headerValue: values.header },
        err: { message: 'query failed', parameters: [values.parameters] },
      },
      'a line with secrets',
    );
    logger.flush();
    const [line] = out.records();
    expect(line.msg).toBe('a line with secrets');
    for (const value of Object.values(values)) expect(out.text).not.toContain(value);
    expect(line.password).toBe('[redacted]');
    expect((line.body as Record<string, unknown>).headerValue).toBe('[redacted]');
    expect(out.lines()).toHaveLength(1);
  });
});
