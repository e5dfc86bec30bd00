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
