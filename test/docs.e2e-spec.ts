import { randomInt } from 'node:crypto';
import type { Response } from 'supertest';
import { startTestApp, TestApp } from './support/test-app';

const HAL = 'application/hal+json;charset=UTF-8';
const API_LIMIT = 2;

/** Every endpoint of the spec (Endpoints) and of the contract (sections 1, 2, 6 and 9). */
const SPEC_ENDPOINTS = [
  'post /auth/login',
  'get /auth/me',
  'post /auth/logout',
  'get /webhooks/subscriptions',
  'get /webhooks/subscriptions/active',
  'get /webhooks/subscriptions/{id}',
  'post /webhooks/subscriptions',
  'put /webhooks/subscriptions/{id}',
  'delete /webhooks/subscriptions/{id}',
  'get /webhooks/subscriptions/{id}/deliveries',
  'get /webhooks/subscriptions/{id}/deliveries/{deliveryId}',
  'get /webhooks/subscriptions/{id}/secret',
  'post /webhooks/subscriptions/{id}/secret/rotate',
  'post /webhooks/subscriptions/{id}/deliveries/{deliveryId}/resend',
  'post /webhooks/subscriptions/{id}/recover',
  'post /webhooks/subscriptions/{id}/test',
  'post /admin/users',
  'get /admin/users',
  'get /admin/users/{id}',
  'patch /admin/users/{id}',
  'post /admin/licence-events',
  'get /health/live',
  'get /health/ready',
  'get /metrics',
  'get /webhooks/event-types',
  'get /webhooks/event-types/{name}',
];

/** A client address of our own (TRUST_PROXY): rate-limit counters may be shared through Redis. */
const freshIp = () => `10.${randomInt(256)}.${randomInt(256)}.${1 + randomInt(254)}`;

/**
 * How Swagger UI's HTTP client (swagger-client, in swagger-ui-bundle.js) reads a fetched document:
 * as text when the content type matches /(json|xml|yaml|text)\b/, then JSON.parse when it starts
 * with application/json or has a +json suffix (YAML otherwise).
 */
function readAsSwaggerUiDoes(contentType: string, text: string): unknown {
  if (!/(json|xml|yaml|text)\b/.test(contentType)) throw new Error(`read as a blob: ${contentType}`);
  if (!(contentType.indexOf('application/json') === 0 || contentType.indexOf('+json') > 0)) {
    throw new Error(`parsed as YAML: ${contentType}`);
  }
  return JSON.parse(text);
}

describe('API documentation: GET /docs (Swagger UI) and GET /openapi.json', () => {
  let t: TestApp;
  const ip = freshIp();
  const get = (path: string) => t.http().get(path).set('x-forwarded-for', ip);

  beforeAll(async () => {
    // A tiny API limit, to show the documentation is outside it while the API is not.
    t = await startTestApp({ TRUST_PROXY: 'true', RATE_LIMIT_API_PER_MINUTE: String(API_LIMIT) });
  });
  afterAll(async () => {
    await t?.close();
  });

  it('serves the Swagger UI page without a token, with every file it loads', async () => {
    const page = await get('/docs').expect(200);
    expect(page.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(page.headers['x-request-id']).toEqual(expect.any(String));
    expect(page.text).toContain('<div id="swagger-ui"></div>');
    expect(page.text).toContain('<title>Partner Integration Service API</title>');

    const refs = [...page.text.matchAll(/(?:src|href)="([^"]+)"/g)].map((m) => m[1]);
    expect(refs).toEqual(
      expect.arrayContaining([
        'docs/swagger-ui.css',
        'docs/swagger-ui-bundle.js',
        'docs/swagger-ui-init.js',
        'docs/favicon-32x32.png',
      ]),
    );
    const types: Record<string, string> = {
      css: 'text/css; charset=utf-8',
      js: 'application/javascript; charset=utf-8',
      png: 'image/png',
    };
    for (const ref of refs) {
      // Relative to the page, as the browser resolves them.
      const path = new URL(ref, `${t.url}/docs`).pathname;
      const res = await get(path).buffer(true);
      expect([path, res.status]).toEqual([path, 200]);
      expect([path, res.headers['content-type']]).toEqual([path, types[path.split('.').pop()!]]);
      expect(Number(res.headers['content-length'])).toBeGreaterThan(0);
      expect(res.headers['x-request-id']).toEqual(expect.any(String));
    }
    const bundle = await get('/docs/swagger-ui-bundle.js').buffer(true);
    expect(bundle.text).toContain('SwaggerUIBundle');
  });

  it('points Swagger UI at /openapi.json, which it parses and which lists every spec endpoint', async () => {
    const init = await get('/docs/swagger-ui-init.js').expect(200);
    expect(init.headers['content-type']).toBe('application/javascript; charset=utf-8');
    const url = /url: "([^"]+)"/.exec(init.text)?.[1];
    expect(url).toBeDefined();
    const documentUrl = new URL(url!, `${t.url}/docs`);
    expect(documentUrl.pathname).toBe('/openapi.json');

    const res = await get(documentUrl.pathname).expect(200);
    // Our convention for every JSON body, which Swagger UI reads as JSON.
    expect(res.headers['content-type']).toBe(HAL);
    expect(res.headers['x-request-id']).toEqual(expect.any(String));
    const document = readAsSwaggerUiDoes(res.headers['content-type'], res.text) as {
      openapi: string;
      paths: Record<string, Record<string, { summary?: string }>>;
    };
    expect(document.openapi).toMatch(/^3\./);
    const listed = Object.entries(document.paths).flatMap(([path, item]) =>
      Object.keys(item).map((method) => `${method} ${path}`),
    );
    expect(listed.sort()).toEqual([...SPEC_ENDPOINTS].sort());
    for (const endpoint of SPEC_ENDPOINTS) {
      const [method, path] = endpoint.split(' ');
      expect([endpoint, typeof document.paths[path][method].summary]).toEqual([endpoint, 'string']);
    }
    // The rule above is not a formality: a plain text body would not be read as JSON.
    expect(() => readAsSwaggerUiDoes('text/plain', res.text)).toThrow('parsed as YAML');
  });

  it('is public and never rate limited, while the API is', async () => {
    for (let i = 0; i < API_LIMIT + 3; i++) {
      for (const path of ['/docs', '/docs/swagger-ui-init.js', '/openapi.json']) {
        for (const authorization of [undefined, 'Bearer not-a-token']) {
          const req = get(path);
          const res: Response = authorization ? await req.set('authorization', authorization) : await req;
          expect([path, res.status, res.headers['retry-after']]).toEqual([path, 200, undefined]);
        }
      }
    }
    // The same client on the API: limited after API_LIMIT requests.
    const statuses: number[] = [];
    for (let i = 0; i < API_LIMIT + 1; i++) statuses.push((await get('/auth/me')).status);
    expect(statuses).toEqual([...Array(API_LIMIT).fill(401), 429]);
  });

  it('answers an unknown file under /docs with the usual 404 error body', async () => {
    const res = await get('/docs/nope.js').expect(404);
    expect(res.headers['content-type']).toBe(HAL);
    expect(res.body).toMatchObject({
      status: 404,
      path: '/docs/nope.js',
      requestId: res.headers['x-request-id'],
    });
  });
});
