import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PORTAL_CSP, PORTAL_DIR } from '../src/portal/portal.module';
import { startTestApp, TestApp } from './support/test-app';

/**
 * GET /portal (contract section 10) on a stand-in build: what the service does with a build's files,
 * whatever the app inside them (the browser spec, portal.e2e-spec, runs the real one).
 */
describe('GET /portal: the built single-page app, served by the service', () => {
  let t: TestApp;
  let dir: string;
  const INDEX =
    '<!doctype html><title>Partner portal</title><script type="module" src="/portal/assets/app-Ab12.js"></script>';

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'pis-portal-'));
    await mkdir(join(dir, 'assets'));
    // index.html comes with the first test: the service starts before the portal is built.
    await writeFile(join(dir, 'assets', 'app-Ab12.js'), 'console.log("portal")');
    await writeFile(join(dir, 'assets', 'app-Ab12.css'), 'body{}');
    await writeFile(join(dir, 'secret.txt'), 'outside assets/');
    // One API call a minute: the portal's files must never count against it.
    t = await startTestApp(
      { RATE_LIMIT_API_PER_MINUTE: '1', RATE_LIMIT_LOGIN_PER_MINUTE: '1' },
      { configure: (builder) => builder.overrideProvider(PORTAL_DIR).useValue(dir) },
    );
  });
  afterAll(async () => {
    await t?.close();
    await rm(dir, { recursive: true, force: true });
  });

  const securityHeaders = (headers: Record<string, string>) => {
    expect(headers['content-security-policy']).toBe(PORTAL_CSP);
    expect(headers['content-security-policy']).not.toMatch(/unsafe-inline|unsafe-eval/);
    expect(headers['content-security-policy']).toMatch(/frame-ancestors 'none'/);
    expect(headers['x-content-type-options']).toBe('nosniff');
    expect(headers['x-request-id']).toBeTruthy();
  };

  it('without a build: a 503 that says to build it, and a later build is served without a restart', async () => {
    const res = await t.http().get('/portal/subscriptions').expect(503);
    expect(res.body.message).toMatch(/partner portal is not built.*npm run build/);
    await writeFile(join(dir, 'index.html'), INDEX);
    await t.http().get('/portal/subscriptions').expect(200);
  });

  it.each([
    '/portal',
    '/portal/',
    '/portal/login',
    '/portal/subscriptions/5',
    '/portal/subscriptions/5/deliveries/9',
  ])('%s is index.html, revalidated on every load, with the security headers', async (path) => {
    const res = await t.http().get(path).expect(200);
    expect(res.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(res.headers['cache-control']).toBe('no-cache');
    expect(res.text).toBe(INDEX);
    securityHeaders(res.headers);
  });

  it('serves hashed assets with their type, cached for a year as immutable', async () => {
    const js = await t.http().get('/portal/assets/app-Ab12.js').expect(200);
    expect(js.headers['content-type']).toBe('text/javascript; charset=utf-8');
    expect(js.headers['cache-control']).toBe('public, max-age=31536000, immutable');
    expect(js.text).toBe('console.log("portal")');
    securityHeaders(js.headers);
    const css = await t.http().get('/portal/assets/app-Ab12.css').expect(200);
    expect(css.headers['content-type']).toBe('text/css; charset=utf-8');
  });

  it.each([
    '/portal/assets/missing-Zz99.js',
    '/portal/assets/../secret.txt',
    '/portal/assets/%2e%2e%2fsecret.txt',
    '/portal/assets/sub/app-Ab12.js',
    '/portal/assets/app-Ab12.txt',
  ])('%s is a 404 with the error body, never a file outside assets/ nor index.html', async (path) => {
    const res = await t.http().get(path);
    expect(res.status).toBe(404);
    expect(res.headers['content-type']).toBe('application/hal+json;charset=UTF-8');
    expect(res.text).not.toContain('outside assets/');
    expect(res.headers['cache-control']).toBe('no-store');
  });

  it('is public and never rate limited (contract section 8), while the API limit is one a minute', async () => {
    for (let i = 0; i < 5; i++) {
      await t.http().get('/portal/subscriptions').expect(200);
      await t.http().get('/portal/assets/app-Ab12.js').set('authorization', 'Bearer made-up').expect(200);
    }
  });
});
