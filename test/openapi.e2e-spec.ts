import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { promisify } from 'node:util';
import type { FastifyInstance } from 'fastify';
import type { Response } from 'supertest';
import { validateEvent } from '../examples/receiver/receiver';
import { buildOpenApiDocument } from '../src/docs/write-openapi';
import { startTestApp, TestApp, TestUser, uniq } from './support/test-app';

type Json = any;

const METHODS = ['get', 'put', 'post', 'delete', 'patch'] as const;
const HAL = 'application/hal+json;charset=UTF-8';
const VERSION = JSON.parse(readFileSync(join(__dirname, '../package.json'), 'utf8')).version;

/**
 * The validator is ESM only and Jest's CommonJS runtime cannot load it: it runs through its own
 * CLI (validate-api) in a plain Node process, which also resolves every $ref.
 */
const VALIDATE_API = join(
  dirname(require.resolve('@seriousme/openapi-schema-validator/package.json')),
  'bin/validate-api-cli.js',
);

async function validateOpenApi(document: Json): Promise<{ valid: boolean; errors?: unknown }> {
  const dir = await mkdtemp(join(tmpdir(), 'pis-openapi-'));
  try {
    const file = join(dir, 'openapi.json');
    await writeFile(file, JSON.stringify(document));
    const { stdout } = await promisify(execFile)(process.execPath, [VALIDATE_API, file]).catch(
      (error: { stdout?: string }) => ({ stdout: error.stdout ?? '{"valid":false,"errors":"no output"}' }),
    );
    return JSON.parse(stdout);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/**
 * The routes Fastify serves, as "METHOD /path/:param", read from printRoutes' tree: each line is
 * indented by 4 columns per level and names its segment, then its methods when it is a route.
 */
function parseRouteTree(tree: string): string[] {
  const routes: string[] = [];
  const prefixes: string[] = [];
  for (const line of tree.split('\n')) {
    const m = /^((?:│ {3}| {4})*)[├└]── (.+?)(?: \(([A-Z]+(?:, [A-Z]+)*)\))?$/.exec(line);
    if (!m) continue;
    const depth = m[1].length / 4;
    prefixes.length = depth;
    prefixes.push(m[2]);
    const path = prefixes.join('');
    for (const method of m[3]?.split(', ') ?? []) routes.push(`${method} ${path}`);
  }
  return routes;
}

/**
 * The served routes to document: no HEAD/OPTIONS (automatic), no Swagger UI files, no document, no
 * partner portal (the single-page app at /portal, contract section 10: pages, not API).
 */
function servedApiRoutes(fastify: FastifyInstance): string[] {
  return parseRouteTree(fastify.printRoutes({ commonPrefix: false }))
    .filter((route) => !/^(HEAD|OPTIONS) /.test(route))
    .filter((route) => !/^GET \/(docs|docs\/.*|openapi\.json|portal|portal[/*].*)$/.test(route))
    .sort();
}

function documentedRoutes(document: Json): string[] {
  return Object.entries(document.paths as Record<string, Json>)
    .flatMap(([path, item]) =>
      METHODS.filter((m) => item[m]).map((m) => `${m.toUpperCase()} ${path.replace(/\{(\w+)\}/g, ':$1')}`),
    )
    .sort();
}

function operationsOf(document: Json): Array<{ method: string; path: string; op: Json }> {
  return Object.entries(document.paths as Record<string, Json>).flatMap(([path, item]) =>
    METHODS.filter((m) => item[m]).map((method) => ({ method, path, op: item[method] })),
  );
}

function resolve(document: Json, schema: Json): Json {
  let s = schema;
  while (s?.$ref) s = document.components.schemas[s.$ref.replace('#/components/schemas/', '')];
  return s;
}

/**
 * Checks a real JSON value against a documented schema: the subset the document uses ($ref, allOf,
 * nullable, enum, type, required, properties, additionalProperties, items). Returns the problems.
 */
function conformance(document: Json, schema: Json, value: unknown, at = '$'): string[] {
  const s = resolve(document, schema);
  if (s.oneOf) {
    // Exactly one alternative takes it (a nullable $ref is `oneOf: [$ref, null]`).
    const fits = s.oneOf.filter((part: Json) => conformance(document, part, value, at).length === 0);
    return fits.length === 1 ? [] : [`${at}: matches ${fits.length} of the oneOf alternatives`];
  }
  if (value === null) return s.nullable ? [] : [`${at}: null but not nullable`];
  if (s.allOf) {
    const problems = s.allOf.flatMap((part: Json) =>
      conformance(document, { ...resolve(document, part), additionalProperties: true }, value, at),
    );
    // Together the parts name every property the value may have.
    const known = new Set(
      s.allOf.flatMap((part: Json) => Object.keys(resolve(document, part).properties ?? {})),
    );
    if (s.type === 'object' || known.size > 0) {
      for (const key of Object.keys(value as object)) {
        if (!known.has(key)) problems.push(`${at}.${key}: not documented`);
      }
    }
    return problems;
  }
  const problems: string[] = [];
  if (s.enum && !s.enum.includes(value)) problems.push(`${at}: ${String(value)} not in ${s.enum}`);
  const type = Array.isArray(value) ? 'array' : typeof value;
  switch (s.type) {
    case 'integer':
      if (!Number.isInteger(value)) problems.push(`${at}: not an integer`);
      break;
    case 'number':
    case 'string':
    case 'boolean':
      if (type !== s.type) problems.push(`${at}: ${type}, documented ${s.type}`);
      break;
    case 'array':
      if (type !== 'array') problems.push(`${at}: ${type}, documented array`);
      else
        (value as unknown[]).forEach((v, i) =>
          problems.push(...conformance(document, s.items, v, `${at}[${i}]`)),
        );
      break;
    case 'object':
    case undefined: {
      if (type !== 'object') {
        if (s.type === 'object') problems.push(`${at}: ${type}, documented object`);
        break;
      }
      const record = value as Record<string, unknown>;
      for (const key of s.required ?? []) if (!(key in record)) problems.push(`${at}.${key}: missing`);
      for (const [key, v] of Object.entries(record)) {
        if (s.properties?.[key])
          problems.push(...conformance(document, s.properties[key], v, `${at}.${key}`));
        else if (typeof s.additionalProperties === 'object')
          problems.push(...conformance(document, s.additionalProperties, v, `${at}.${key}`));
        else if (s.additionalProperties !== true) problems.push(`${at}.${key}: not documented`);
      }
      break;
    }
  }
  return problems;
}

/** A port nothing listens on: deliveries to it fail at once (connection refused). */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as { port: number };
  await new Promise<void>((r) => server.close(() => r()));
  return port;
}

describe('OpenAPI document (GET /openapi.json)', () => {
  let t: TestApp;
  let document: Json;
  let admin: TestUser;
  let partner: TestUser;

  const bearer = (user: TestUser) => ({ authorization: `Bearer ${user.token}` });
  const operation = (method: string, path: string) => document.paths[path]?.[method];
  /** The documented schema of a response of an operation (its hal+json content). */
  const responseSchema = (method: string, path: string, status: number) =>
    operation(method, path).responses[String(status)].content[HAL.split(';')[0]].schema;
  const expectConforms = (method: string, path: string, res: Response) => {
    expect(String(res.status) in operation(method, path).responses).toBe(true);
    expect(res.headers['content-type']).toBe(HAL);
    expect(conformance(document, responseSchema(method, path, res.status), res.body)).toEqual([]);
  };
  const example = (method: string, path: string, name: string) =>
    operation(method, path).requestBody.content['application/json'].examples[name].value;

  beforeAll(async () => {
    t = await startTestApp();
    const res = await t.http().get('/openapi.json').expect(200);
    document = JSON.parse(res.text);
    admin = await t.createUser({ admin: true });
    partner = await t.createUser({ tenant: uniq('acme') });
  });
  afterAll(async () => {
    await t?.close();
  });

  it('is valid OpenAPI 3.0 for @seriousme/openapi-schema-validator, every $ref resolving', async () => {
    expect(document.openapi).toMatch(/^3\.0\.\d$/);
    await expect(validateOpenApi(document)).resolves.toEqual({ valid: true });
    // The harness can fail: a broken copy is refused, and so is a dangling $ref.
    const broken = { ...document, info: undefined };
    await expect(validateOpenApi(broken)).resolves.toMatchObject({ valid: false });
    const dangling = JSON.parse(JSON.stringify(document));
    dangling.paths['/auth/me'].get.responses['200'].content[HAL.split(';')[0]].schema = {
      $ref: '#/components/schemas/Nope',
    };
    await expect(validateOpenApi(dangling)).resolves.toMatchObject({ valid: false });
  });

  it('is the document `npm run lint:openapi` and the lint spec build without a database', async () => {
    expect(await buildOpenApiDocument()).toEqual(document);
  });

  it('takes title, description and version from the service', () => {
    expect(document.info).toMatchObject({
      title: 'Partner Integration Service',
      version: VERSION,
      description: expect.stringContaining('Authorization: Bearer'),
    });
  });

  it('documents exactly the routes the app serves', () => {
    const served = servedApiRoutes(t.app.getHttpAdapter().getInstance());
    // The parser reads the tree right: it sees routes at every depth.
    expect(served).toEqual(
      expect.arrayContaining([
        'POST /auth/login',
        'GET /health/live',
        'GET /webhooks/subscriptions/:id/deliveries/:deliveryId',
      ]),
    );
    expect(documentedRoutes(document)).toEqual(served);
  });

  it('documents every endpoint of the spec and the contract', () => {
    expect(documentedRoutes(document)).toEqual(
      [
        'POST /auth/login',
        'GET /auth/me',
        'POST /auth/logout',
        'POST /admin/users',
        'GET /admin/users',
        'GET /admin/users/:id',
        'PATCH /admin/users/:id',
        'GET /webhooks/subscriptions',
        'GET /webhooks/subscriptions/active',
        'GET /webhooks/subscriptions/:id',
        'POST /webhooks/subscriptions',
        'PUT /webhooks/subscriptions/:id',
        'DELETE /webhooks/subscriptions/:id',
        'GET /webhooks/subscriptions/:id/deliveries',
        'GET /webhooks/subscriptions/:id/deliveries/:deliveryId',
        'GET /webhooks/subscriptions/:id/secret',
        'POST /webhooks/subscriptions/:id/secret/rotate',
        'POST /webhooks/subscriptions/:id/deliveries/:deliveryId/resend',
        'POST /webhooks/subscriptions/:id/recover',
        'POST /webhooks/subscriptions/:id/test',
        'GET /webhooks/event-types',
        'GET /webhooks/event-types/:name',
        'POST /admin/licence-events',
        'GET /health/live',
        'GET /health/ready',
        'GET /metrics',
      ].sort(),
    );
  });

  it('declares the bearer scheme globally and `security: []` exactly on the public operations', () => {
    expect(document.components.securitySchemes.bearer).toMatchObject({
      type: 'http',
      scheme: 'bearer',
      bearerFormat: 'JWT',
    });
    expect(document.security).toEqual([{ bearer: [] }]);
    const open = operationsOf(document)
      .filter(({ op }) => Array.isArray(op.security) && op.security.length === 0)
      .map(({ method, path }) => `${method.toUpperCase()} ${path}`)
      .sort();
    expect(open).toEqual(['GET /health/live', 'GET /health/ready', 'POST /auth/login']);
    for (const { op } of operationsOf(document)) {
      if (op.security) expect(op.security).toEqual([]);
    }
  });

  it('matches the guard: protected operations answer 401 without a token, public ones do not', async () => {
    const checked: string[] = [];
    for (const { method, path, op } of operationsOf(document)) {
      const url = path.replace(/\{\w+\}/g, '1');
      const req = t.http()[method as 'get'](url);
      const res = ['post', 'put', 'patch'].includes(method) ? await req.send({}) : await req;
      if (op.security?.length === 0) expect([method, path, res.status]).not.toEqual([method, path, 401]);
      else expect([method, path, res.status]).toEqual([method, path, 401]);
      expect(String(res.status) in op.responses).toBe(true);
      checked.push(path);
    }
    expect(checked).toHaveLength(26);
  });

  it("accepts every parameter's example: each read with all its query examples is no 400", async () => {
    const checked: string[] = [];
    for (const { method, path, op } of operationsOf(document)) {
      if (method !== 'get') continue;
      const parameters = (op.parameters ?? []).filter((p: Json) => !p.$ref);
      const example = (p: Json) => p.example ?? p.schema?.example;
      const url = path.replace(/\{(\w+)\}/g, (_m, name) =>
        String(example(parameters.find((p: Json) => p.name === name)) ?? 1),
      );
      const query = new URLSearchParams();
      for (const p of parameters.filter((p: Json) => p.in === 'query' && example(p) !== undefined)) {
        for (const value of [example(p)].flat()) query.append(p.name, String(value));
      }
      const res = await t.http().get(`${url}?${query}`).set(bearer(admin));
      expect([path, `${query}`, res.status]).not.toEqual([path, `${query}`, 400]);
      if (query.size > 0) checked.push(path);
    }
    expect(checked).toEqual(
      expect.arrayContaining(['/webhooks/subscriptions/{id}/deliveries', '/admin/users']),
    );
    // The check can fail: a sort field the list does not have is a 400.
    const bad = await t.http().get('/admin/users?sort=nope,asc').set(bearer(admin));
    expect(bad.status).toBe(400);
  });

  it('documents windows that hold something: each since example is before its until example', () => {
    const list = operation('get', '/webhooks/subscriptions/{id}/deliveries').parameters as Json[];
    const param = (name: string) => list.find((p) => p.name === name);
    const listWindow = [param('since'), param('until')].map((p) => p.example ?? p.schema?.example);
    const recover = resolve(document, { $ref: '#/components/schemas/RecoverDeliveriesRequest' }).properties;
    const recoverWindow = [recover.since.example, recover.until.example];
    for (const [since, until] of [listWindow, recoverWindow]) {
      expect(Date.parse(since)).toBeLessThan(Date.parse(until));
    }
  });

  it("documents the success code and the spec's error codes of every endpoint", () => {
    // Spec, Errors (per endpoint), plus the contract's endpoints; 429 wherever a limit applies and
    // 413/415 on every body. Lower bounds: an operation may document more (e.g. 400 for a bad id).
    const expected: Record<string, number[]> = {
      'post /auth/login': [200, 400, 401, 429],
      'get /auth/me': [200, 401, 403],
      'post /auth/logout': [204, 401, 403],
      'get /webhooks/subscriptions': [200, 401, 403],
      'get /webhooks/subscriptions/active': [200, 401, 403],
      'get /webhooks/subscriptions/{id}': [200, 401, 403, 404],
      'delete /webhooks/subscriptions/{id}': [200, 401, 403, 404],
      'get /webhooks/subscriptions/{id}/deliveries': [200, 401, 403, 404],
      'get /webhooks/subscriptions/{id}/deliveries/{deliveryId}': [200, 401, 403, 404],
      'post /webhooks/subscriptions': [200, 400, 401, 403],
      'post /webhooks/subscriptions/{id}/deliveries/{deliveryId}/resend': [202, 400, 401, 403, 404, 409],
      'post /webhooks/subscriptions/{id}/recover': [202, 400, 401, 403, 404, 409],
      'post /webhooks/subscriptions/{id}/test': [202, 400, 401, 403, 404],
      'put /webhooks/subscriptions/{id}': [200, 400, 401, 403, 404],
      'get /webhooks/subscriptions/{id}/secret': [200, 401, 403, 404],
      'post /webhooks/subscriptions/{id}/secret/rotate': [200, 400, 401, 403, 404],
      'post /admin/users': [201, 400, 401, 403, 409],
      'get /admin/users': [200, 400, 401, 403],
      'get /admin/users/{id}': [200, 401, 403, 404],
      'patch /admin/users/{id}': [200, 400, 401, 403, 404],
      'get /webhooks/event-types': [200, 400, 401, 403],
      'get /webhooks/event-types/{name}': [200, 401, 403, 404],
      'post /admin/licence-events': [202, 400, 401, 403],
      'get /health/live': [200],
      'get /health/ready': [200, 503],
      'get /metrics': [200, 401],
    };
    for (const { method, path, op } of operationsOf(document)) {
      const key = `${method} ${path}`;
      const codes = Object.keys(op.responses).map(Number);
      const wanted = [...expected[key]];
      if (!path.startsWith('/health') && path !== '/metrics') wanted.push(429);
      if (op.requestBody) wanted.push(413, 415);
      expect([key, codes]).toEqual([key, expect.arrayContaining(wanted)]);
      // One success code, the documented one.
      expect([key, codes.filter((c) => c < 300)]).toEqual([key, [expected[key][0]]]);
      for (const code of codes.filter((c) => c >= 400)) {
        const response = op.responses[String(code)];
        const media = response.content[HAL.split(';')[0]];
        expect([key, code, Object.keys(response.content), media.schema]).toEqual([
          key,
          code,
          [HAL.split(';')[0]],
          { $ref: '#/components/schemas/ErrorBody' },
        ]);
        // An example of its own status, valid against the error body.
        expect([key, code, media.example.status]).toEqual([key, code, code]);
        expect(conformance(document, media.schema, media.example)).toEqual([]);
      }
      if (codes.includes(429)) expect(op.responses['429'].headers['Retry-After']).toBeDefined();
      for (const response of Object.values(op.responses) as Json[]) {
        expect(response.headers['X-Request-Id']).toEqual({ $ref: '#/components/headers/X-Request-Id' });
      }
    }
  });

  it('gives every operation a summary, a tag, an id and a success body schema', () => {
    const ids = new Set<string>();
    for (const { method, path, op } of operationsOf(document)) {
      expect([method, path, typeof op.summary, op.tags?.length]).toEqual([method, path, 'string', 1]);
      expect(ids.has(op.operationId)).toBe(false);
      ids.add(op.operationId);
      const success = Object.keys(op.responses).find((c) => c.startsWith('2'))!;
      const media = path === '/metrics' ? 'text/plain' : HAL.split(';')[0];
      // 204 (logout): no body.
      if (success !== '204') expect(op.responses[success].content[media].schema).toBeDefined();
    }
  });

  it('describes every field of every schema, and gives every request body an example', () => {
    const undescribed: string[] = [];
    for (const [name, schema] of Object.entries(document.components.schemas as Record<string, Json>)) {
      if (!schema.description && schema.type !== 'object') undescribed.push(name);
      for (const [field, property] of Object.entries((schema.properties ?? {}) as Record<string, Json>)) {
        const described = property.description ?? resolve(document, property).description;
        if (!described) undescribed.push(`${name}.${field}`);
      }
    }
    expect(undescribed).toEqual([]);
    for (const { method, path, op } of operationsOf(document)) {
      for (const parameter of op.parameters ?? []) {
        if (!parameter.$ref) expect([path, parameter.name, parameter.description]).not.toContain(undefined);
      }
      if (!op.requestBody) continue;
      const media = op.requestBody.content['application/json'];
      expect([method, path, Object.keys(media.examples ?? {}).length > 0]).toEqual([method, path, true]);
    }
  });

  it('states the limits: lengths, enums, formats, ranges, nullability', () => {
    const schemas = document.components.schemas;
    expect(schemas.SubscriptionRequest.required.sort()).toEqual(['events', 'name', 'url']);
    expect(schemas.SubscriptionRequest.properties).toMatchObject({
      name: { type: 'string', maxLength: 255 },
      url: { type: 'string', format: 'uri', maxLength: 255, pattern: '^https://' },
      description: { maxLength: 1000, nullable: true },
      events: { type: 'array', minItems: 1, items: { $ref: '#/components/schemas/WebhookEvent' } },
      headerValue: { writeOnly: true, maxLength: 255 },
    });
    expect(schemas.Subscription.properties.headerValue).toBeUndefined();
    expect(schemas.WebhookEvent.enum).toEqual(['LICENCE_CREATED_SUCCESS', 'LICENCE_CREATED_FAILED']);
    expect(schemas.DeliveryStatus.enum).toEqual(['SUCCESS', 'FAILED']);
    expect(schemas.LicenceStatus.enum).toEqual(['CREATED', 'ACTIVATED', 'SUSPENDED', 'DEACTIVATED']);
    expect(schemas.UserRole.enum).toEqual(['ROLE_PARTNER', 'ROLE_CLIENT', 'ROLE_BRANCH']);
    expect(schemas.LoginRequest.required.sort()).toEqual(['email', 'password']);
    expect(schemas.CreateUserRequest.properties.password).toMatchObject({ minLength: 8, maxLength: 255 });
    expect(schemas.Licence.properties).toMatchObject({
      email: { format: 'email' },
      pricing: { type: 'number', minimum: 0 },
      clientId: { type: 'integer', minimum: 1 },
    });
    expect(schemas.Delivery.properties.httpStatusCode.nullable).toBe(true);
    expect(schemas.ErrorBody.properties.timestamp.format).toBe('date-time');
    const list = operation('get', '/webhooks/subscriptions').parameters;
    const param = (name: string) => list.find((p: Json) => p.name === name);
    expect(param('page').schema).toMatchObject({ type: 'integer', minimum: 0, default: 0 });
    expect(param('size').schema).toMatchObject({ type: 'integer', minimum: 1, maximum: 100, default: 20 });
    expect(param('sort').schema).toMatchObject({ type: 'array', items: { type: 'string' } });
    expect(param('index').schema).toMatchObject({ type: 'string', maxLength: 255 });
    const active = operation('get', '/webhooks/subscriptions/active').parameters;
    expect(active.find((p: Json) => p.name === 'active').schema).toMatchObject({
      type: 'boolean',
      default: true,
    });
    const deliveries = operation('get', '/webhooks/subscriptions/{id}/deliveries').parameters;
    for (const params of [active, deliveries]) {
      expect(params.find((p: Json) => p.name === 'sort').schema).toMatchObject({
        type: 'array',
        items: { type: 'string' },
      });
    }
    expect(deliveries.find((p: Json) => p.name === 'sort').description).toContain(
      'id, sentAt, createdAt, status, httpStatusCode, eventType',
    );
    expect(operation('get', '/admin/users').parameters.map((p: Json) => p.name)).toEqual(
      expect.arrayContaining(['page', 'size', 'sort', 'tenant']),
    );
  });

  it('documents every list as the page envelope of its items', () => {
    const lists: Record<string, string> = {
      '/webhooks/subscriptions': 'Subscription',
      '/webhooks/subscriptions/active': 'Subscription',
      '/webhooks/subscriptions/{id}/deliveries': 'Delivery',
      '/admin/users': 'User',
    };
    for (const [path, item] of Object.entries(lists)) {
      expect(responseSchema('get', path, 200).allOf).toEqual([
        { $ref: '#/components/schemas/Page' },
        expect.objectContaining({
          properties: {
            content: expect.objectContaining({ items: { $ref: `#/components/schemas/${item}` } }),
          },
          required: ['content'],
        }),
      ]);
    }
  });

  it('documents the payload delivered to receivers as a callback of POST /webhooks/subscriptions', () => {
    const callback = operation('post', '/webhooks/subscriptions').callbacks.licenceEvent;
    expect(Object.keys(callback)).toEqual(['{$request.body#/url}']);
    const post = callback['{$request.body#/url}'].post;
    expect(post.security).toEqual([]);
    expect(post.requestBody.content['application/json'].schema).toEqual({
      $ref: '#/components/schemas/LicenceEventPayload',
    });
    expect(Object.keys(post.responses)).toEqual(['2XX', '4XX', 'default']);
    const payload = document.components.schemas.LicenceEventPayload;
    expect(Object.keys(payload.properties)).toEqual(['eventType', 'timestamp', 'tenant', 'licence', 'error']);
    expect(payload.required).toEqual(['eventType', 'timestamp', 'tenant', 'licence', 'error']);
    // The examples are what the service really sends: the example receiver's own check accepts them.
    for (const { value } of Object.values(post.requestBody.content['application/json'].examples) as Json[]) {
      expect(validateEvent(value)).toBeUndefined();
      expect(conformance(document, payload, value)).toEqual([]);
    }
  });

  it('tells the truth: the body examples are accepted and real responses match the schemas', async () => {
    // Login, current user and the error body.
    const login = await t
      .http()
      .post('/auth/login')
      .send({ email: partner.email, password: partner.password });
    expectConforms('post', '/auth/login', login);
    expectConforms('get', '/auth/me', await t.http().get('/auth/me').set(bearer(partner)));
    expectConforms(
      'get',
      '/webhooks/event-types',
      await t.http().get('/webhooks/event-types').set(bearer(partner)),
    );
    const badLogin = await t
      .http()
      .post('/auth/login')
      .send(example('post', '/auth/login', 'login'));
    expect(badLogin.status).toBe(401); // the example's account does not exist here
    expectConforms('post', '/auth/login', badLogin);
    const invalid = await t
      .http()
      .post('/webhooks/subscriptions')
      .set(bearer(partner))
      .send({ url: 'http://x' });
    expect(invalid.status).toBe(400);
    expectConforms('post', '/webhooks/subscriptions', invalid);

    // Users: the create example, then each PATCH example.
    const user = await t
      .http()
      .post('/admin/users')
      .set(bearer(admin))
      .send(example('post', '/admin/users', 'partner'));
    expect(user.status).toBe(201);
    expectConforms('post', '/admin/users', user);
    for (const name of ['disable', 'promote']) {
      const res = await t
        .http()
        .patch(`/admin/users/${user.body.id}`)
        .set(bearer(admin))
        .send(example('patch', '/admin/users/{id}', name));
      expect([name, res.status]).toEqual([name, 200]);
      expectConforms('patch', '/admin/users/{id}', res);
    }
    expectConforms(
      'get',
      '/admin/users/{id}',
      await t.http().get(`/admin/users/${user.body.id}`).set(bearer(admin)),
    );
    expectConforms('get', '/admin/users', await t.http().get('/admin/users?size=2').set(bearer(admin)));

    // Subscriptions: both examples on create and replace; the one receiving deliveries points at a
    // closed port, so they fail at once and leave delivery records.
    const created: Json[] = [];
    for (const name of ['subscription', 'minimal']) {
      const res = await t
        .http()
        .post('/webhooks/subscriptions')
        .set(bearer(partner))
        .send(example('post', '/webhooks/subscriptions', name));
      expect([name, res.status]).toEqual([name, 200]);
      expectConforms('post', '/webhooks/subscriptions', res);
      created.push(res.body);
    }
    const receiverUrl = `https://127.0.0.1:${await closedPort()}/hooks`;
    for (const name of ['subscription', 'minimal']) {
      const res = await t
        .http()
        .put(`/webhooks/subscriptions/${created[0].id}`)
        .set(bearer(partner))
        .send({ ...example('put', '/webhooks/subscriptions/{id}', name), url: receiverUrl });
      expect([name, res.status]).toEqual([name, 200]);
      expectConforms('put', '/webhooks/subscriptions/{id}', res);
    }
    expectConforms(
      'get',
      '/webhooks/subscriptions/{id}',
      await t.http().get(`/webhooks/subscriptions/${created[0].id}`).set(bearer(partner)),
    );
    expectConforms(
      'get',
      '/webhooks/subscriptions',
      await t.http().get('/webhooks/subscriptions').set(bearer(partner)),
    );
    expectConforms(
      'get',
      '/webhooks/subscriptions/active',
      await t.http().get('/webhooks/subscriptions/active').set(bearer(partner)),
    );
    const missing = await t.http().get('/webhooks/subscriptions/2147483647').set(bearer(partner));
    expect(missing.status).toBe(404);
    expectConforms('get', '/webhooks/subscriptions/{id}', missing);

    // The other one goes (DELETE answers the deleted subscription), so only the first gets events.
    expectConforms(
      'delete',
      '/webhooks/subscriptions/{id}',
      await t.http().delete(`/webhooks/subscriptions/${created[1].id}`).set(bearer(partner)),
    );

    // Licence events: the failure example goes to the subscription above (it lists
    // LICENCE_CREATED_FAILED after the "minimal" PUT), the success example to a tenant with none.
    for (const name of ['success', 'failed']) {
      const body = example('post', '/admin/licence-events', name);
      const res = await t
        .http()
        .post('/admin/licence-events')
        .set(bearer(admin))
        .send(name === 'failed' ? { ...body, tenant: partner.tenant } : body);
      expect([name, res.status]).toEqual([name, 202]);
      expectConforms('post', '/admin/licence-events', res);
    }
    const deliveriesPath = `/webhooks/subscriptions/${created[0].id}/deliveries`;
    let deliveries: Response;
    const deadline = Date.now() + 15_000;
    do {
      await new Promise((r) => setTimeout(r, 100));
      deliveries = await t.http().get(deliveriesPath).set(bearer(partner));
    } while (deliveries.body.totalElements === 0 && Date.now() < deadline);
    expect(deliveries.body.content).toHaveLength(1);
    expect(deliveries.body.content[0]).toMatchObject({ status: 'FAILED', httpStatusCode: null });
    expectConforms('get', '/webhooks/subscriptions/{id}/deliveries', deliveries);
    const one = await t.http().get(deliveries.body.content[0]._links.self.href).set(bearer(partner));
    expect(one.status).toBe(200);
    expectConforms('get', '/webhooks/subscriptions/{id}/deliveries/{deliveryId}', one);

    expectConforms('get', '/health/live', await t.http().get('/health/live'));
    expectConforms('get', '/health/ready', await t.http().get('/health/ready'));

    // The checker itself can fail: an undocumented field, a wrong type, a missing field.
    const schema = responseSchema('get', '/auth/me', 200);
    const me = (await t.http().get('/auth/me').set(bearer(partner))).body;
    expect(conformance(document, schema, { ...me, extra: 1 })).toEqual(['$.extra: not documented']);
    expect(conformance(document, schema, { ...me, isValidToken: 'yes' })).toEqual([
      '$.isValidToken: string, documented boolean',
    ]);
    const noRole = { ...me };
    delete noRole.role;
    expect(conformance(document, schema, noRole)).toEqual(['$.role: missing']);
    const payload = document.components.schemas.LicenceEventPayload;
    const failed = example('post', '/admin/licence-events', 'failed');
    expect(conformance(document, payload, { ...failed, timestamp: '', licence: 'x' })).toEqual([
      '$.licence: matches 0 of the oneOf alternatives',
    ]);
  });
});
