import { randomInt } from 'node:crypto';
import { createHash } from 'node:crypto';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Response } from 'supertest';
import { PORTAL_DIR } from '../src/portal/portal.module';
import { RawConnection, RawResponse } from './support/raw-http';
import { startTestApp, TestApp, TestUser, uniq } from './support/test-app';

/** Per-token API limit: low enough to reach a 429 in a few requests. */
const API_LIMIT = 3;

type Headers = Record<string, string>;

/**
 * Response headers (contract section 8, Bulkheads and budgets): `X-Content-Type-Options: nosniff`
 * on every response, `Cache-Control: no-store` on every authenticated one, and a
 * Content-Security-Policy with `frame-ancestors 'none'` on /docs and on every /portal response.
 */
describe('response headers (contract section 8)', () => {
  let t: TestApp;
  let portalDir: string;
  let admin: TestUser;

  beforeAll(async () => {
    portalDir = await mkdtemp(join(tmpdir(), 'pis-portal-headers-'));
    await mkdir(join(portalDir, 'assets'));
    await writeFile(join(portalDir, 'index.html'), '<!doctype html><title>Partner portal</title>');
    await writeFile(join(portalDir, 'assets', 'app-Ab12.js'), 'console.log("portal")');
    t = await startTestApp(
      // TRUST_PROXY: a made-up token counts against the client IP, which with REDIS_URL is shared with
      // every other test file's anonymous requests; that test comes from an address of its own.
      { RATE_LIMIT_API_PER_MINUTE: String(API_LIMIT), TRUST_PROXY: 'true' },
      { configure: (builder) => builder.overrideProvider(PORTAL_DIR).useValue(portalDir) },
    );
    admin = await t.createUser({ admin: true });
  });
  afterAll(async () => {
    await t?.close();
    await rm(portalDir, { recursive: true, force: true });
  });

  const bearer = (user: TestUser) => `Bearer ${user.token}`;

  const nosniff = (headers: Headers) => expect(headers['x-content-type-options']).toBe('nosniff');
  const notStored = (headers: Headers) => expect(headers['cache-control']).toBe('no-store');
  const notFramed = (headers: Headers) => {
    const policy = headers['content-security-policy'];
    expect(policy).toMatch(/(^|;\s*)frame-ancestors 'none'(;|$)/);
    expect(policy).not.toMatch(/'unsafe-inline'|'unsafe-eval'/);
  };
  const expectStatus = (res: Response, status: number) =>
    expect([res.status, res.text]).toEqual([status, res.text]);

  describe('every API response: nosniff; authenticated ones also no-store', () => {
    it('200 from GET /auth/me', async () => {
      const user = await t.createUser();
      const res = await t.http().get('/auth/me').set('authorization', bearer(user));
      expectStatus(res, 200);
      nosniff(res.headers);
      notStored(res.headers);
    });

    it('401 from GET /auth/me with a made-up token', async () => {
      const res = await t
        .http()
        .get('/auth/me')
        .set('x-forwarded-for', `198.51.100.${randomInt(1, 255)}`)
        .set('authorization', 'Bearer made.up.token');
      expectStatus(res, 401);
      nosniff(res.headers);
      notStored(res.headers);
    });

    it('404 from an unknown route', async () => {
      const res = await t.http().get(`/${uniq('nope')}`);
      expectStatus(res, 404);
      nosniff(res.headers);
    });

    it('429 past the per-token limit', async () => {
      const user = await t.createUser();
      let res: Response | undefined;
      for (let i = 0; i <= API_LIMIT; i++)
        res = await t.http().get('/auth/me').set('authorization', bearer(user));
      expectStatus(res!, 429);
      expect(res!.headers['retry-after']).toBeTruthy();
      nosniff(res!.headers);
      notStored(res!.headers);
    });

    it('200 from GET /webhooks/subscriptions/{id}/secret, the signing secret never stored by a cache', async () => {
      const user = await t.createUser();
      const created = await t
        .http()
        .post('/webhooks/subscriptions')
        .set('authorization', bearer(user))
        .send({
          name: uniq('sub'),
          url: 'https://receiver.example.com/hook',
          events: ['LICENCE_CREATED_SUCCESS'],
        });
      expectStatus(created, 200);
      notStored(created.headers);
      const res = await t
        .http()
        .get(`/webhooks/subscriptions/${created.body.id}/secret`)
        .set('authorization', bearer(user));
      expectStatus(res, 200);
      expect(res.body.key).toMatch(/^whsec_/);
      nosniff(res.headers);
      notStored(res.headers);
    });

    it('GET /health/live and GET /metrics', async () => {
      const live = await t.http().get('/health/live');
      expectStatus(live, 200);
      nosniff(live.headers);
      const metrics = await t.http().get('/metrics').set('authorization', bearer(admin));
      expectStatus(metrics, 200);
      nosniff(metrics.headers);
      notStored(metrics.headers);
    });

    const rawExchange = async (text: string): Promise<RawResponse> => {
      const connection = await RawConnection.open(t.url);
      await connection.write(text);
      const response = await connection.response();
      connection.destroy();
      expect(response).toBeDefined();
      return response!;
    };

    it('400 for a malformed URL, refused by the router before any hook', async () => {
      const res = await rawExchange('GET /auth/%ZZ HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n');
      expect(res.status).toBe(400);
      nosniff(res.headers);
    });

    it('431 for headers over 16 KB, refused by Node before Fastify', async () => {
      const res = await rawExchange(
        `GET /health/live HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(20_000)}\r\n\r\n`,
      );
      expect(res.status).toBe(431);
      nosniff(res.headers);
    });
  });

  describe('/docs and /portal: not framed by another site', () => {
    it.each(['/docs', '/docs/swagger-ui-init.js'])('%s', async (path) => {
      const res = await t.http().get(path);
      expectStatus(res, 200);
      nosniff(res.headers);
      notFramed(res.headers);
    });

    it('/docs allows what Swagger UI loads (its files, the document, its inline style) and nothing else', async () => {
      const res = await t.http().get('/docs');
      const policy = Object.fromEntries(
        res.headers['content-security-policy'].split(/;\s*/).map((d: string) => {
          const [name, ...sources] = d.split(' ');
          return [name, sources];
        }),
      ) as Record<string, string[]>;
      expect(policy['default-src']).toEqual(["'none'"]);
      expect(policy['script-src']).toEqual(["'self'"]);
      expect(policy['connect-src']).toEqual(["'self'"]);
      // The stylesheet's icons are data: URIs.
      expect(policy['img-src']).toEqual(["'self'", 'data:']);
      // The page's one inline <style>, by its hash.
      const inline = /<style>([^<]*)<\/style>/.exec(res.text)?.[1];
      expect(inline).toBeDefined();
      const hash = `'sha256-${createHash('sha256').update(inline!).digest('base64')}'`;
      expect(policy['style-src']).toEqual(["'self'", hash]);
      expect(res.text).not.toMatch(/<script>|<script [^>]*>[^<]/);
    });

    it.each<[string, string, number, 'get' | 'post']>([
      ['the app', '/portal', 200, 'get'],
      ['a deep link', '/portal/subscriptions/5', 200, 'get'],
      ['an asset', '/portal/assets/app-Ab12.js', 200, 'get'],
      ['a missing asset', '/portal/assets/missing-Zz99.js', 404, 'get'],
      ['a method it does not serve', '/portal', 404, 'post'],
    ])('%s (%s): %d', async (_what, path, status, method) => {
      const res = await t.http()[method](path);
      expectStatus(res, status);
      nosniff(res.headers);
      notFramed(res.headers);
    });
  });
});
