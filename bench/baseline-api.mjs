/* global process */
// API baselines, each in its own process, against the service's database:
//
//   MODE=same-work  a minimal node:http + pg server doing per request the work the service does:
//                   verify the HS256 token (node:crypto), check the user (prepared statement, cached
//                   for USER_CACHE_TTL_MS exactly like the service's UserCheckService), run the same
//                   page and count queries (prepared statements, side by side like the service),
//                   serialise the same body shape (page envelope, HAL links), send the same headers.
//                   The ceiling for this work on this machine.
//   MODE=bare       answers the precomputed body of each route (BARE_BODIES, JSON), nothing else.
//
// env: MODE, DATABASE_URL, JWT_SECRET, USER_CACHE_TTL_MS, DB_POOL_SIZE, BARE_BODIES
import { Buffer } from 'node:buffer';
import { createHmac, randomUUID, timingSafeEqual } from 'node:crypto';
import { createServer } from 'node:http';
import { URL, URLSearchParams } from 'node:url';
import pg from 'pg';

const HAL = 'application/hal+json;charset=UTF-8';
const MODE = process.env.MODE;

function send(res, status, body) {
  res.writeHead(status, {
    'content-type': HAL,
    'content-length': Buffer.byteLength(body),
    'x-request-id': randomUUID(),
  });
  res.end(body);
}

function readBody(req) {
  return new Promise((resolve, reject) => {
    const chunks = [];
    req.on('data', (c) => chunks.push(c));
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });
}

// ---------------------------------------------------------------------------------------------
// bare
function bareHandler() {
  const bodies = JSON.parse(process.env.BARE_BODIES ?? '{}');
  return (req, res) => {
    const route = bodies[`${req.method} ${req.url}`];
    req.resume();
    req.on('end', () => {
      if (!route) send(res, 404, '{"status":404}');
      else send(res, route.status, route.body);
    });
  };
}

// ---------------------------------------------------------------------------------------------
// same work
const key = Buffer.from(process.env.JWT_SECRET ?? '', 'utf8');
const userCacheTtlMs = Number(process.env.USER_CACHE_TTL_MS ?? 2000);
const pool =
  MODE === 'same-work'
    ? new pg.Pool({ connectionString: process.env.DATABASE_URL, max: Number(process.env.DB_POOL_SIZE ?? 10) })
    : undefined;
pool?.on('error', () => undefined);

class HttpError extends Error {
  constructor(status, message) {
    super(message);
    this.status = status;
  }
}

const REASONS = { 400: 'Bad Request', 401: 'Unauthorized', 403: 'Forbidden', 404: 'Not Found' };

/** HS256 only, signature compared in constant time, expiry checked. */
function verifyToken(header) {
  if (typeof header !== 'string' || !header.startsWith('Bearer '))
    throw new HttpError(401, 'Invalid or expired token');
  const token = header.slice(7);
  const dot1 = token.indexOf('.');
  const dot2 = token.indexOf('.', dot1 + 1);
  if (dot1 < 0 || dot2 < 0) throw new HttpError(401, 'Invalid or expired token');
  const expected = createHmac('sha256', key).update(token.slice(0, dot2)).digest();
  const given = Buffer.from(token.slice(dot2 + 1), 'base64url');
  if (given.length !== expected.length || !timingSafeEqual(given, expected))
    throw new HttpError(401, 'Invalid or expired token');
  const head = JSON.parse(Buffer.from(token.slice(0, dot1), 'base64url').toString('utf8'));
  if (head.alg !== 'HS256') throw new HttpError(401, 'Invalid or expired token');
  const claims = JSON.parse(Buffer.from(token.slice(dot1 + 1, dot2), 'base64url').toString('utf8'));
  if (typeof claims.exp !== 'number' || claims.exp * 1000 <= Date.now())
    throw new HttpError(401, 'Invalid or expired token');
  return claims;
}

const userCache = new Map();

async function checkUser(id) {
  const now = Date.now();
  let entry = userCache.get(id);
  if (!entry || entry.expiresAt <= now) {
    const { rows } = await pool.query({
      name: 'user-check',
      text: `SELECT id, email, role, is_administrator, tenant, hub, partner_id, partner_name, user_name, enabled
               FROM users WHERE id = $1`,
      values: [id],
    });
    const r = rows[0];
    entry = {
      user: r
        ? {
            id: r.id,
            email: r.email,
            role: r.role,
            isAdministrator: r.is_administrator,
            tenant: r.tenant,
            hub: r.hub,
            partnerId: r.partner_id,
            partnerName: r.partner_name,
            userName: r.user_name,
            enabled: r.enabled,
          }
        : null,
      expiresAt: now + userCacheTtlMs,
    };
    if (userCacheTtlMs > 0) {
      if (userCache.size > 10_000) userCache.clear();
      userCache.set(id, entry);
    }
  }
  if (!entry.user) throw new HttpError(401, 'Invalid or expired token');
  if (!entry.user.enabled) throw new HttpError(403, 'Account is disabled');
  return entry.user;
}

async function authenticate(req) {
  return checkUser(Number(verifyToken(req.headers.authorization).sub));
}

function halLinks(links) {
  const out = {};
  for (const [rel, href] of Object.entries(links)) if (href !== undefined) out[rel] = { href };
  return out;
}

function href(path, query, page) {
  const params = new URLSearchParams();
  for (const [k, value] of Object.entries({ ...query, page })) {
    if (value === undefined) continue;
    for (const v of Array.isArray(value) ? value : [value]) params.append(k, String(v));
  }
  return `${path}?${params.toString()}`;
}

function toPage(content, totalElements, page, size, path, query) {
  const totalPages = Math.ceil(totalElements / size);
  const lastPage = Math.max(totalPages - 1, 0);
  const q = { ...query, size };
  return {
    totalPages,
    totalElements,
    numberOfElements: content.length,
    number: page,
    size,
    first: page === 0,
    last: page >= lastPage,
    empty: content.length === 0,
    content,
    _links: halLinks({
      self: href(path, q, page),
      first: href(path, q, 0),
      last: href(path, q, lastPage),
      next: page < lastPage ? href(path, q, page + 1) : undefined,
      prev: page > 0 ? href(path, q, Math.min(page - 1, lastPage)) : undefined,
    }),
  };
}

const renderRole = (role) => `[[${role === 'ROLE_CLIENT' ? 'ROLE_USER' : role}]]`;

function toSubscription(s) {
  return {
    id: s.id,
    tenant: s.tenant,
    active: s.active,
    name: s.name,
    url: s.url,
    description: s.description ?? null,
    events: s.events,
    headerName: s.headerName ?? null,
    createdAt: s.createdAt.toISOString(),
    updatedAt: s.updatedAt.toISOString(),
    _links: halLinks({
      self: `/webhooks/subscriptions/${s.id}`,
      deliveries: `/webhooks/subscriptions/${s.id}/deliveries`,
    }),
  };
}

const COLUMNS = `id, tenant, active, name, url, description, events, header_name AS "headerName",
  created_at AS "createdAt", updated_at AS "updatedAt"`;

function pageParam(value, fallback, min, max, name) {
  if (value === null) return fallback;
  if (!/^\d{1,10}$/.test(value)) throw new HttpError(400, `${name} must be an integer`);
  const n = Number(value);
  if (n < min || n > max) throw new HttpError(400, `${name} out of range`);
  return n;
}

function requirePartner(user) {
  if (!user.isAdministrator && user.role !== 'ROLE_PARTNER')
    throw new HttpError(403, 'Your role may not use this resource');
}

async function me(req) {
  const user = await authenticate(req);
  return {
    user: user.email,
    isValidToken: true,
    isAdministrator: user.isAdministrator,
    otherInformation: {
      hub: user.hub,
      partnerName: user.partnerName,
      userName: user.userName,
      partnerId: user.partnerId,
    },
    role: renderRole(user.role),
    _links: halLinks({ self: '/auth/me' }),
  };
}

async function listSubscriptions(req, search) {
  const user = await authenticate(req);
  requirePartner(user);
  for (const k of search.keys())
    if (k !== 'page' && k !== 'size') throw new HttpError(400, `${k} is not a known field`);
  const page = pageParam(search.get('page'), 0, 0, 2_147_483_647, 'page');
  const size = pageParam(search.get('size'), 20, 1, 100, 'size');
  const admin = user.isAdministrator;
  const where = admin ? '' : 'WHERE tenant = $1';
  const params = admin ? [] : [user.tenant];
  const n = params.length;
  const [rows, count] = await Promise.all([
    pool.query({
      name: admin ? 'page-all' : 'page-tenant',
      text: `SELECT ${COLUMNS} FROM subscriptions ${where} ORDER BY id ASC LIMIT $${n + 1} OFFSET $${n + 2}`,
      values: [...params, size, page * size],
    }),
    pool.query({
      name: admin ? 'count-all' : 'count-tenant',
      text: `SELECT count(*) AS total FROM subscriptions ${where}`,
      values: params,
    }),
  ]);
  return toPage(
    rows.rows.map(toSubscription),
    Number(count.rows[0].total),
    page,
    size,
    '/webhooks/subscriptions',
    {
      sort: undefined,
      index: undefined,
      tenant: undefined,
    },
  );
}

const EVENTS = new Set(['LICENCE_CREATED_SUCCESS', 'LICENCE_CREATED_FAILED']);
const BODY_FIELDS = new Set([
  'id',
  'tenant',
  'createdAt',
  'updatedAt',
  '_links',
  'active',
  'name',
  'url',
  'description',
  'events',
  'headerName',
  'headerValue',
]);

async function createSubscription(req) {
  const user = await authenticate(req);
  requirePartner(user);
  let body;
  try {
    body = JSON.parse(await readBody(req));
  } catch {
    throw new HttpError(400, 'Malformed JSON');
  }
  for (const k of Object.keys(body))
    if (!BODY_FIELDS.has(k)) throw new HttpError(400, `${k} is not a known field`);
  if (typeof body.name !== 'string' || body.name.trim() === '' || body.name.length > 255)
    throw new HttpError(400, 'name is invalid');
  let url;
  try {
    url = new URL(body.url);
  } catch {
    throw new HttpError(400, 'url is invalid');
  }
  if (url.protocol !== 'https:' || body.url.length > 255 || url.username || url.password)
    throw new HttpError(400, 'url must be an https URL');
  if (!Array.isArray(body.events) || body.events.length === 0 || !body.events.every((e) => EVENTS.has(e)))
    throw new HttpError(400, 'events is invalid');
  if (body.active !== undefined && typeof body.active !== 'boolean')
    throw new HttpError(400, 'active is invalid');
  const tenant = user.isAdministrator && typeof body.tenant === 'string' ? body.tenant : user.tenant;
  const { rows } = await pool.query({
    name: 'create-subscription',
    text: `INSERT INTO subscriptions
             (tenant, active, name, url, description, events, header_name, header_value_encrypted)
           VALUES ($1, $2, $3, $4, $5, $6::varchar(64)[], $7, $8)
           RETURNING ${COLUMNS}`,
    values: [
      tenant,
      body.active ?? true,
      body.name,
      body.url,
      body.description ?? null,
      [...new Set(body.events)],
      null,
      null,
    ],
  });
  return toSubscription(rows[0]);
}

function sameWorkHandler() {
  return (req, res) => {
    const q = req.url.indexOf('?');
    const path = q < 0 ? req.url : req.url.slice(0, q);
    let work;
    if (req.method === 'GET' && path === '/auth/me') work = me(req);
    else if (req.method === 'GET' && path === '/webhooks/subscriptions')
      work = listSubscriptions(req, new URLSearchParams(q < 0 ? '' : req.url.slice(q + 1)));
    else if (req.method === 'POST' && path === '/webhooks/subscriptions') work = createSubscription(req);
    else work = Promise.reject(new HttpError(404, 'Not Found'));
    work.then(
      (result) => {
        if (req.method !== 'POST') req.resume();
        send(res, 200, JSON.stringify(result));
      },
      (error) => {
        req.resume();
        const status = error instanceof HttpError ? error.status : 500;
        send(
          res,
          status,
          JSON.stringify({
            timestamp: new Date().toISOString(),
            status,
            error: REASONS[status] ?? 'Internal Server Error',
            message: status === 500 ? 'Internal server error' : error.message,
            path,
          }),
        );
        if (status === 500) process.stderr.write(`${error?.stack ?? error}\n`);
      },
    );
  };
}

const server = createServer(
  { keepAliveTimeout: 72_000 },
  MODE === 'bare' ? bareHandler() : sameWorkHandler(),
);
server.listen(0, '127.0.0.1', () => process.send?.({ type: 'ready', port: server.address().port }));
process.on('SIGTERM', () => {
  server.close();
  server.closeAllConnections?.();
  void (pool ? pool.end() : Promise.resolve()).finally(() => process.exit(0));
});
process.on('disconnect', () => process.exit(0));
