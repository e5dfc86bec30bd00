import { stopAcceptingRequests } from '../src/app.factory';
import { startTestApp, TestApp } from './support/test-app';

const HAL = 'application/hal+json;charset=UTF-8';

describe('GET /health/live and /health/ready (contract section 1)', () => {
  let t: TestApp;

  beforeAll(async () => {
    t = await startTestApp();
  });
  afterAll(async () => {
    await t?.close();
  });

  it('answers live with 200, public, as HAL JSON', async () => {
    const res = await t.http().get('/health/live').expect(200);
    expect(res.headers['content-type']).toBe(HAL);
    expect(res.headers['x-request-id']).toBeTruthy();
    expect(res.body).toEqual({ status: 'ok', info: {}, error: {}, details: {} });
  });

  it('answers ready with 200 once the database is reachable and every migration applied', async () => {
    const res = await t.http().get('/health/ready').expect(200);
    expect(res.headers['content-type']).toBe(HAL);
    expect(res.body).toEqual({
      status: 'ok',
      info: { database: { status: 'up' }, migrations: { status: 'up' } },
      error: {},
      details: { database: { status: 'up' }, migrations: { status: 'up' } },
    });
  });

  it.each([
    ['a garbage token', 'Bearer nonsense'],
    ['a non-bearer scheme', 'Basic YTpi'],
  ])('stays public when the request carries %s', async (_name, authorization) => {
    await t.http().get('/health/live').set('authorization', authorization).expect(200);
    await t.http().get('/health/ready').set('authorization', authorization).expect(200);
  });

  it('has no other methods', async () => {
    const res = await t.http().post('/health/ready').send({}).expect(404);
    expect(res.headers['content-type']).toBe(HAL);
  });
});

describe('GET /health/ready before the migrations are applied', () => {
  let t: TestApp;

  beforeAll(async () => {
    t = await startTestApp();
  });
  afterAll(async () => {
    await t?.close();
  });

  it('answers 503 with the error body, and 200 once they are; live stays 200', async () => {
    // As if a migration were still pending: the readiness check finds none recorded.
    await t.dataSource.query('ALTER TABLE migrations RENAME TO migrations_hidden');
    try {
      const res = await t.http().get('/health/ready').set('x-request-id', 'not-ready-1').expect(503);
      expect(res.headers['content-type']).toBe(HAL);
      expect(res.headers['x-request-id']).toBe('not-ready-1');
      expect(res.body).toMatchObject({
        status: 503,
        error: 'Service Unavailable',
        message: 'Service Unavailable',
        path: '/health/ready',
        requestId: 'not-ready-1',
      });
      await t.http().get('/health/live').expect(200);
    } finally {
      await t.dataSource.query('ALTER TABLE migrations_hidden RENAME TO migrations');
    }
    await t.http().get('/health/ready').expect(200);
  });
});

describe('while the service shuts down (contract section 1: stop accepting requests)', () => {
  let t: TestApp;

  beforeAll(async () => {
    t = await startTestApp();
  });
  afterAll(async () => {
    await t?.close();
  });

  it('refuses new connections and answers a request on an open connection 503, closing it', async () => {
    await t.http().get('/health/ready').expect(200);
    stopAcceptingRequests(t.app);

    await expect(fetch(`${t.url}/health/live`)).rejects.toThrow();
    // As if it came on a keep-alive connection opened before: the request reaches the app.
    const res = await t.app.inject({
      method: 'GET',
      url: '/health/ready?probe=1',
      headers: { 'x-request-id': 'draining-1' },
    });
    expect(res.statusCode).toBe(503);
    expect(res.headers['content-type']).toBe(HAL);
    expect(res.headers['x-request-id']).toBe('draining-1');
    expect(res.headers.connection).toBe('close');
    expect(JSON.parse(res.body)).toEqual({
      timestamp: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/),
      status: 503,
      error: 'Service Unavailable',
      message: 'Service Unavailable',
      path: '/health/ready',
      requestId: 'draining-1',
    });
    // No handler ran: an authenticated route answers the same, before any token check.
    const other = await t.app.inject({ method: 'POST', url: '/webhooks/subscriptions', payload: {} });
    expect(other.statusCode).toBe(503);
  });
});
