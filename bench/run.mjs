/* global process, console, performance, setTimeout, setInterval, clearInterval */
// npm run bench [-- --quick] [--only api-read,api-me,...] [--profile] [--receiver-ports N]
//
// Starts the service as its own process (node dist/src/main.js; embedded PostgreSQL in a fresh
// temporary DATA_DIR, or a fresh database on DATABASE_URL's server), seeds it, measures the API and
// the webhook dispatcher beside baselines run in the same way on the same machine, prints a table
// and writes bench/results.json. Every child process and temporary folder is removed at the end,
// on failure and on Ctrl-C too. See bench/README.md.
import { Buffer } from 'node:buffer';
import { createHmac, randomBytes } from 'node:crypto';
import { chmodSync, copyFileSync, mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath, URL } from 'node:url';
import { parseArgs } from 'node:util';
import autocannon from 'autocannon';
import pg from 'pg';
import { writeReceiverCertificates } from './lib/certs.mjs';
import { DELIVERIES_TABLE, RECEIVER_PORTS, SIZES, TARGETS } from './lib/config.mjs';
import { CpuMeter, memoryOf, postmasterOf } from './lib/cpu.mjs';
import {
  cleanupAll,
  forkTracked,
  installExitHandlers,
  ipcRequest,
  makeTempDir,
  onCleanup,
  stopChild,
  waitForMessage,
} from './lib/processes.mjs';
import { formatProfile, summariseCpuProfile } from './lib/profile.mjs';
import { formatCpuTable, formatTable, latencySummary, round } from './lib/report.mjs';
import { insertBacklog, insertHistory } from './lib/seed.mjs';
import { signSubscriptions } from './lib/signing.mjs';
import { DISPATCH_SIGNING_TARGET, dispatchSigningFigure } from './dispatch-signing.mjs';
import { call, closeHttpClient, embeddedDatabaseUrl, startService } from './lib/service.mjs';

const benchDir = dirname(fileURLToPath(import.meta.url));
const repoRoot = dirname(benchDir);
const now = () => performance.timeOrigin + performance.now();
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const log = (message) => process.stderr.write(`[bench] ${message}\n`);

const ALL_FIGURES = [
  'api-read',
  'api-me',
  'api-write',
  'dispatch',
  'dispatch-signing',
  'dispatch-paced',
  'fan-out',
  'sustained',
  'backlog',
  'history',
  'memory',
];
const EVENT_TYPE = 'LICENCE_CREATED_SUCCESS';

const { values: args } = parseArgs({
  options: {
    quick: { type: 'boolean', default: false },
    only: { type: 'string' },
    profile: { type: 'boolean', default: false },
    'receiver-ports': { type: 'string' },
    // Diagnostic rows spreading the api-read/api-me load over N tokens (default: 1000 full, none quick).
    tokens: { type: 'string' },
    output: { type: 'string', default: join(benchDir, 'results.json') },
    // Debugging: after the figures, keep everything running until Ctrl-C (prints the URLs).
    hold: { type: 'boolean', default: false },
    // Exit 1 when a figure failed with an error (not when it is merely not built yet).
    strict: { type: 'boolean', default: false },
    // Diagnostics: extra node options for the service process, e.g. "--max-semi-space-size=4".
    'node-args': { type: 'string' },
    // Rounds of the dispatch figure (service, axios, undici in turn; the median round counts).
    rounds: { type: 'string' },
  },
});
const mode = args.quick ? 'quick' : 'full';
const size = { ...SIZES[mode], ...(args.rounds ? { dispatchRounds: Number(args.rounds) } : {}) };
const only = args.only
  ? new Set(args.only.split(',').map((s) => s.trim()))
  : args.profile
    ? new Set(['api-read', 'api-me'])
    : undefined;
for (const name of only ?? []) if (!ALL_FIGURES.includes(name)) throw new Error(`unknown figure ${name}`);
const want = (name) => !only || only.has(name);
const receiverPorts = Number(args['receiver-ports'] ?? RECEIVER_PORTS);

/** Shared state of one run. */
const ctx = {
  figures: [],
  cpuRuns: [],
  profileWindows: [],
  service: undefined,
  pool: undefined,
  postmasterPid: undefined,
  baselinePid: undefined,
  receiver: undefined,
  receiverPorts: [],
  memory: { peakRssMb: 0, peakHwmMb: 0, phases: {} },
  phase: 'start-up',
};

function licence(code) {
  return {
    code,
    clientId: 1001,
    planId: 7,
    name: 'Bench Holder',
    email: 'holder@example.com',
    phoneNumber: '11987654321',
    status: 'CREATED',
    maxRedemptions: 5,
    pricing: 49.9,
  };
}

function unavailable(figure, reason, target, error = false) {
  log(`${figure}: not available: ${reason}`);
  ctx.figures.push({
    figure,
    available: false,
    error,
    reason,
    value: null,
    baseline: null,
    ratio: null,
    target,
  });
}

/**
 * Runs the code of some figures; if it throws, each of them not yet reported is reported as not
 * available with the error, and the run goes on (the table is still printed; --strict exits 1).
 * `expectedS`: about how long they take, so --quick skips them if they would end past its budget.
 */
async function guarded(names, targets, fn, expectedS = 0) {
  if (size.budgetS && now() - ctx.started + expectedS * 1000 > size.budgetS * 1000) {
    for (const name of names)
      unavailable(name, `skipped: the ${size.budgetS} s budget of --${mode} is used up`, targets[name]);
    return;
  }
  const before = ctx.figures.length;
  try {
    await fn();
  } catch (error) {
    ctx.baselinePid = undefined;
    const done = new Set(ctx.figures.slice(before).map((f) => f.figure));
    for (const name of names)
      if (!done.has(name)) unavailable(name, `error: ${error?.message ?? error}`, targets[name], true);
    log(error?.stack ?? String(error));
  }
}

// ---------------------------------------------------------------------------------------------
// Set-up

async function createDatabaseOnServer(serverUrl) {
  const name = `pis_bench_${Date.now().toString(36)}_${randomBytes(3).toString('hex')}`;
  const admin = new pg.Client({ connectionString: serverUrl });
  await admin.connect();
  try {
    await admin.query(`CREATE DATABASE "${name}"`);
  } finally {
    await admin.end();
  }
  onCleanup(async () => {
    const c = new pg.Client({ connectionString: serverUrl });
    await c.connect();
    try {
      await c.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
    } finally {
      await c.end();
    }
  });
  const url = new URL(serverUrl);
  url.pathname = `/${name}`;
  return url.toString();
}

async function login(email, password) {
  const res = await call(ctx.service.base, 'POST', '/auth/login', { body: { email, password } });
  if (res.status !== 200) throw new Error(`login of ${email} failed: ${res.status} ${res.text}`);
  return res.body.token;
}

async function createPartner(adminToken, email, password, tenant) {
  const res = await call(ctx.service.base, 'POST', '/admin/users', {
    token: adminToken,
    body: { email, password, role: 'ROLE_PARTNER', tenant, partnerId: 7, partnerName: `Partner ${tenant}` },
  });
  if (res.status !== 201) throw new Error(`creating ${email} failed: ${res.status} ${res.text}`);
  return login(email, password);
}

/**
 * 100,000 (quick: 10,000) subscriptions of 1,000 (100) tenants; `bench-main` holds 1,000 of them,
 * every 100th (10th) row, so its rows are spread over the table as a real tenant's would be.
 */
async function seedSubscriptions() {
  const started = now();
  await ctx.pool.query(
    `INSERT INTO subscriptions (tenant, active, name, url, description, events, created_at, updated_at)
     SELECT CASE WHEN g % ($3 / $1) = 0 THEN 'bench-main'
                 ELSE 'bench-t' || lpad((((g - g / ($3 / $1)) % $2) + 1)::text, 4, '0') END,
            g % 10 <> 0,
            'Subscription ' || g,
            'https://partner' || (g % 97) || '.example.com/hooks/licences/' || g,
            CASE WHEN g % 3 = 0 THEN 'Seeded by the bench' END,
            CASE WHEN g % 4 = 0 THEN ARRAY['LICENCE_CREATED_SUCCESS', 'LICENCE_CREATED_FAILED']
                 ELSE ARRAY['LICENCE_CREATED_SUCCESS'] END::varchar(64)[],
            now() - g * interval '1 minute',
            now() - g * interval '30 seconds'
     FROM generate_series(1, $3) AS g`,
    [size.tenantSubscriptions, size.tenants - 1, size.subscriptions],
  );
  // VACUUM too: the visibility map makes counts index-only scans, as autovacuum would in steady state.
  await ctx.pool.query('VACUUM (ANALYZE) subscriptions');
  const { rows } = await ctx.pool.query(
    `SELECT count(*) FILTER (WHERE tenant = 'bench-main')::int AS main, count(DISTINCT tenant)::int AS tenants,
            count(*)::int AS total FROM subscriptions`,
  );
  log(
    `seeded ${rows[0].total.toLocaleString('en-US')} subscriptions of ${rows[0].tenants} tenants ` +
      `(bench-main: ${rows[0].main}) in ${Math.round(now() - started)} ms`,
  );
}

/** `n` active subscriptions of `tenant`, spread over the receiver's ports; ids are contiguous. */
async function seedReceiverTenant(tenant, n) {
  const ports = ctx.receiverPorts;
  const { rows } = await ctx.pool.query(
    `INSERT INTO subscriptions (tenant, active, name, url, events)
     SELECT $1::varchar, true, 'Bench receiver ' || g,
            'https://127.0.0.1:' || ($2::int[])[1 + (g % cardinality($2::int[]))] || '/hooks/' || $1::varchar || '/' || g,
            ARRAY['LICENCE_CREATED_SUCCESS']::varchar(64)[]
     FROM generate_series(1, $3) AS g
     RETURNING id, url`,
    [tenant, ports, n],
  );
  await signSubscriptions(ctx.pool, ctx.secretsKey, tenant); // every delivery signed, as in service
  await ctx.pool.query('ANALYZE subscriptions');
  const ids = rows.map((r) => r.id);
  return {
    tenant,
    urls: rows.map((r) => r.url),
    min: Math.min(...ids),
    max: Math.max(...ids),
    count: ids.length,
  };
}

// ---------------------------------------------------------------------------------------------
// Measurement helpers

function trackMemory() {
  const timer = setInterval(() => {
    const m = ctx.service && memoryOf(ctx.service.pid);
    if (!m) return;
    ctx.memory.peakRssMb = Math.max(ctx.memory.peakRssMb, m.rssMb);
    ctx.memory.peakHwmMb = Math.max(ctx.memory.peakHwmMb, m.hwmMb);
    ctx.memory.phases[ctx.phase] = Math.max(ctx.memory.phases[ctx.phase] ?? 0, round(m.rssMb, 1));
  }, 200);
  timer.unref();
  return () => clearInterval(timer);
}

function cpuMeter() {
  return new CpuMeter(
    {
      service: () => ctx.service?.pid,
      postgres: () => ctx.postmasterPid,
      receiver: () => ctx.receiver?.pid,
      baseline: () => ctx.baselinePid,
    },
    new Set(['postgres']),
  );
}

/**
 * Starts recording the CPU each process group uses; `stop(units)` (requests or deliveries done)
 * adds the run to the CPU table with CPU milliseconds per unit, which hold up better than
 * throughput when other processes compete for the machine, and returns it.
 */
function startCpuRun(name) {
  const app = ctx.baselinePid ? 'baseline' : 'service';
  const meter = cpuMeter().start();
  return (units) => {
    const { percent, seconds, wallS, mainThread } = meter.stop();
    const msPerUnit = {};
    if (units > 0)
      for (const [group, s] of Object.entries(seconds)) msPerUnit[group] = round((s * 1000) / units, 3);
    const run = {
      name,
      app,
      cpu: percent,
      wallS: round(wallS, 2),
      units,
      msPerUnit,
      appMainThread: mainThread[app],
    };
    ctx.cpuRuns.push(run);
    return run;
  };
}

/** Runs `fn` as one CPU run; `unitsOf(result)` is its work done. The run is in `result.cpu`. */
async function withCpu(name, fn, unitsOf) {
  const stop = startCpuRun(name);
  const result = await fn();
  const run = stop(unitsOf?.(result));
  if (result && typeof result === 'object') result.cpu = run;
  return result;
}

function loadTest(base, spec, durationS) {
  const headers = { authorization: `Bearer ${spec.token}`, accept: 'application/hal+json' };
  if (spec.body !== undefined) headers['content-type'] = 'application/json';
  let next = 0;
  // Many tokens: each request carries the next one (a different rate-limit key, the same user).
  const requests = spec.tokens
    ? [
        {
          setupRequest: (req) => {
            req.headers = {
              ...req.headers,
              authorization: `Bearer ${spec.tokens[next++ % spec.tokens.length]}`,
            };
            return req;
          },
        },
      ]
    : undefined;
  return autocannon({
    url: base + spec.path,
    method: spec.method,
    headers,
    body: spec.body === undefined ? undefined : JSON.stringify(spec.body),
    requests,
    connections: size.connections,
    duration: durationS,
    pipelining: 1,
    timeout: 10,
  });
}

/**
 * `n` valid tokens of the user of `token`, differing only in `iat`: the service's rate limiter
 * counts each separately (it keys on the token), its user check caches them as one user.
 */
function mintTokens(token, jwtSecret, n) {
  const [header, payload] = token.split('.');
  const claims = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8'));
  return Array.from({ length: n }, (_, k) => {
    const body = Buffer.from(JSON.stringify({ ...claims, iat: claims.iat - 1 - k })).toString('base64url');
    const signature = createHmac('sha256', Buffer.from(jwtSecret, 'utf8'))
      .update(`${header}.${body}`)
      .digest('base64url');
    return `${header}.${body}.${signature}`;
  });
}

/** Warm-up, then the measured run: throughput (2xx per second) and latency. */
async function measureApi(label, base, spec, pid) {
  if (size.warmupS > 0) await loadTest(base, spec, size.warmupS);
  ctx.baselinePid = pid;
  const from = now();
  const r = await withCpu(
    label,
    () => loadTest(base, spec, size.durationS),
    (result) => result['2xx'],
  );
  // The measured windows of the service, relative to its start: the profile summary keeps only these.
  if (pid === undefined)
    ctx.profileWindows.push([from - ctx.service.spawnedAt, now() - ctx.service.spawnedAt]);
  ctx.baselinePid = undefined;
  const result = {
    value: round(r['2xx'] / r.duration),
    unit: 'req/s',
    p50: r.latency.p50,
    p99: r.latency.p99,
    requests: r['2xx'],
    cpuMsPerRequest: r.cpu.msPerUnit,
    non2xx: r.non2xx,
    errors: r.errors,
    timeouts: r.timeouts,
    durationS: r.duration,
  };
  log(
    `${label}: ${result.value} req/s, p50 ${result.p50} ms, p99 ${result.p99} ms` +
      (result.non2xx || result.errors ? ` (non-2xx ${result.non2xx}, errors ${result.errors})` : ''),
  );
  return result;
}

/** Same keys, recursively (values aside): the baselines must answer the same shape. */
function shapeOf(value) {
  if (Array.isArray(value)) return value.length > 0 ? [shapeOf(value[0])] : [];
  if (value && typeof value === 'object')
    return Object.fromEntries(Object.keys(value).map((k) => [k, shapeOf(value[k])]));
  return typeof value;
}

async function startApiBaseline(modeName, env) {
  const child = forkTracked(`baseline-${modeName}`, join(benchDir, 'baseline-api.mjs'), {
    env: { ...process.env, ...env, MODE: modeName },
  });
  const { port } = await waitForMessage(child, 'ready');
  return { child, base: `http://127.0.0.1:${port}` };
}

// ---------------------------------------------------------------------------------------------
// Figures 1-3: the API

/** api-read's request: a page of the subscriptions of bench-main (1,000 of them). */
const apiReadSpec = (token) => ({
  figure: 'api-read',
  method: 'GET',
  path: '/webhooks/subscriptions?size=20',
  token,
});

async function apiFigures(tokens, jwtSecret) {
  const specs = [
    apiReadSpec(tokens.reader),
    { figure: 'api-me', method: 'GET', path: '/auth/me', token: tokens.me },
    {
      figure: 'api-write',
      method: 'POST',
      path: '/webhooks/subscriptions',
      token: tokens.writer,
      body: {
        name: 'Bench write',
        url: 'https://partner.example.com/hooks/licences',
        events: [EVENT_TYPE],
      },
    },
  ].filter((s) => want(s.figure));
  if (specs.length === 0) return;

  const targetOf = (figure) =>
    figure === 'api-write' ? undefined : `≥${TARGETS.apiRatio}× same-work, p99 ≤${TARGETS.apiP99Ms} ms`;
  const available = [];
  const bareBodies = {};
  for (const spec of specs) {
    const res = await call(ctx.service.base, spec.method, spec.path, { token: spec.token, body: spec.body });
    if (res.status !== 200) {
      unavailable(
        spec.figure,
        `${spec.method} ${spec.path} answered ${res.status}${res.body?.message ? ` (${res.body.message})` : ''}`,
        targetOf(spec.figure),
      );
      continue;
    }
    spec.sample = res.body;
    bareBodies[`${spec.method} ${spec.path}`] = { status: 200, body: res.text };
    available.push(spec);
  }
  if (available.length === 0) return;

  const baselines = args.profile
    ? undefined
    : {
        'same-work': await startApiBaseline('same-work', {
          DATABASE_URL: ctx.databaseUrl,
          JWT_SECRET: jwtSecret,
          USER_CACHE_TTL_MS: process.env.USER_CACHE_TTL_MS ?? '2000',
          DB_POOL_SIZE: process.env.DB_POOL_SIZE ?? '10',
        }),
        bare: await startApiBaseline('bare', { BARE_BODIES: JSON.stringify(bareBodies) }),
      };

  // --profile --tokens N: profile the many-token load instead (the rate limiter's per-token cost aside).
  if (args.profile && Number(args.tokens) > 1)
    for (const spec of available) spec.tokens = mintTokens(spec.token, jwtSecret, Number(args.tokens));
  for (const spec of available) {
    ctx.phase = spec.figure;
    const notes = [];
    if (baselines) {
      const check = await call(baselines['same-work'].base, spec.method, spec.path, {
        token: spec.token,
        body: spec.body,
      });
      if (check.status !== 200)
        notes.push(`same-work baseline answered ${check.status}: ${check.text.slice(0, 200)}`);
      else if (JSON.stringify(shapeOf(check.body)) !== JSON.stringify(shapeOf(spec.sample)))
        notes.push('same-work baseline body shape differs from the service');
    }
    const service = await measureApi(`${spec.figure} service`, ctx.service.base, spec, undefined);
    const measured = {};
    if (baselines) {
      for (const [name, b] of Object.entries(baselines))
        measured[name] = await measureApi(`${spec.figure} ${name}`, b.base, spec, b.child.pid);
    }
    if (service.non2xx || service.errors)
      notes.push(`service: ${service.non2xx} non-2xx, ${service.errors} errors`);
    const ratio = measured['same-work'] ? round(service.value / measured['same-work'].value, 2) : null;
    const target = targetOf(spec.figure);
    const pass =
      target && ratio !== null ? ratio >= TARGETS.apiRatio && service.p99 <= TARGETS.apiP99Ms : undefined;
    ctx.figures.push({
      figure: spec.figure,
      request: `${spec.method} ${spec.path}`,
      unit: 'req/s',
      value: service.value,
      p50: service.p50,
      p99: service.p99,
      baseline: measured['same-work']?.value ?? null,
      ratio,
      ratioBare: measured.bare ? round(service.value / measured.bare.value, 2) : null,
      baselines: measured,
      service,
      connections: size.connections,
      durationS: size.durationS,
      target,
      pass,
      notes,
    });
  }
  if (baselines) for (const b of Object.values(baselines)) await stopChild(b.child);

  // Diagnostic rows: the same load spread over many tokens of the same user. The in-memory rate
  // limiter keeps one timestamp per request per token for a minute and filters that list on every
  // request, so one token at thousands of requests a second (possible only with the limit raised,
  // as here) costs it more per request than many tokens at a realistic rate each.
  const tokenCount = Number(args.tokens ?? (mode === 'full' ? 1000 : 0));
  if (tokenCount > 1 && !args.profile) {
    for (const spec of available.filter((s) => s.figure !== 'api-write')) {
      const main = ctx.figures.find((f) => f.figure === spec.figure);
      ctx.phase = `${spec.figure} ×${tokenCount} tokens`;
      const many = { ...spec, tokens: mintTokens(spec.token, jwtSecret, tokenCount) };
      const service = await measureApi(
        `${spec.figure} ×${tokenCount} tokens service`,
        ctx.service.base,
        many,
      );
      ctx.figures.push({
        figure: `${spec.figure} ×${tokenCount} tokens`,
        request: `${spec.method} ${spec.path}`,
        unit: 'req/s',
        value: service.value,
        p50: service.p50,
        p99: service.p99,
        baseline: main?.baseline ?? null,
        ratio: main?.baseline ? round(service.value / main.baseline, 2) : null,
        baselines: main?.baselines ? { 'same-work': main.baselines['same-work'] } : undefined,
        service,
        tokens: tokenCount,
        target: 'diagnostic',
        notes: [
          `the load of ${spec.figure} spread over ${tokenCount} tokens of the same user (rate-limiter keys); ` +
            'baseline: the same-work figure of the row above',
        ],
      });
    }
  }
}

const historyTarget = () => `≥${TARGETS.historyRatio}× api-read`;

/**
 * A page of the delivery history of a subscription of bench-main holding 200,000 records among
 * 2,000,000 (inserted with SQL), beside api-read's page measured just before it, in the same state.
 * It runs last: the earlier figures' records are removed first (the database is the bench's own),
 * so the table holds exactly these, and these are removed afterwards.
 */
async function historyFigure(tokens) {
  ctx.phase = 'history (seeding)';
  const { rows } = await ctx.pool.query(
    `SELECT min(id) AS id FROM subscriptions WHERE tenant = 'bench-main'`,
  );
  const { id } = rows[0];
  await ctx.pool.query(`TRUNCATE "${DELIVERIES_TABLE}"`);
  const started = now();
  const inserted = await insertHistory(ctx.pool, {
    subscriptionId: id,
    tenant: 'bench-main',
    records: size.historyRecords,
    total: size.historyTotal,
    eventType: EVENT_TYPE,
    licence,
  });
  // As autovacuum would have by then: the visibility map lets counts be index-only scans.
  await ctx.pool.query(`VACUUM (ANALYZE) "${DELIVERIES_TABLE}"`);
  log(
    `history: inserted ${inserted.toLocaleString('en-US')} delivery records ` +
      `(${size.historyRecords.toLocaleString('en-US')} of subscription ${id}) in ${Math.round(now() - started)} ms`,
  );
  try {
    const spec = {
      figure: 'history',
      method: 'GET',
      path: `/webhooks/subscriptions/${id}/deliveries?size=20`,
      token: tokens.history,
    };
    const res = await call(ctx.service.base, spec.method, spec.path, { token: spec.token });
    if (res.status !== 200)
      return unavailable('history', `${spec.method} ${spec.path} answered ${res.status}`, historyTarget());
    ctx.phase = 'history';
    const page = await measureApi('history: api-read service', ctx.service.base, apiReadSpec(tokens.reader));
    const service = await measureApi('history service', ctx.service.base, spec);
    const ratio = page.value ? round(service.value / page.value, 2) : null;
    const apiRead = ctx.figures.find((f) => f.figure === 'api-read' && f.value);
    const notes = [
      `${size.historyRecords.toLocaleString('en-US')} records of the subscription among ${inserted.toLocaleString('en-US')}; ` +
        'baseline: api-read (a page of bench-main’s subscriptions) measured just before, on the same database',
    ];
    const cpu = (m) =>
      `service ${m.cpuMsPerRequest.service} ms + PostgreSQL ${m.cpuMsPerRequest.postgres} ms`;
    notes.push(`CPU per request: history ${cpu(service)}; api-read ${cpu(page)}`);
    if (apiRead)
      notes.push(
        `against the api-read row of this run (${apiRead.value} req/s): ${round(service.value / apiRead.value, 2)}`,
      );
    if (service.non2xx || service.errors)
      notes.push(`service: ${service.non2xx} non-2xx, ${service.errors} errors`);
    ctx.figures.push({
      figure: 'history',
      request: `${spec.method} ${spec.path}`,
      unit: 'req/s',
      value: service.value,
      p50: service.p50,
      p99: service.p99,
      baseline: page.value,
      ratio,
      baselines: { 'api-read': page },
      service,
      records: size.historyRecords,
      totalRecords: inserted,
      connections: size.connections,
      durationS: size.durationS,
      target: historyTarget(),
      pass: ratio === null ? undefined : ratio >= TARGETS.historyRatio,
      notes,
    });
  } finally {
    ctx.phase = 'history (clean-up)';
    await ctx.pool.query(`TRUNCATE "${DELIVERIES_TABLE}"`);
  }
}

// ---------------------------------------------------------------------------------------------
// Figures 4-5: dispatch

async function publish(tenant, code) {
  const res = await call(ctx.service.base, 'POST', '/admin/licence-events', {
    token: ctx.adminToken,
    body: { eventType: EVENT_TYPE, tenant, licence: licence(code) },
  });
  if (res.status !== 202) throw new Error(`publish answered ${res.status}: ${res.text.slice(0, 300)}`);
  return res.body;
}

async function maxDeliveryId() {
  if (!ctx.deliveriesTable) return 0;
  const { rows } = await ctx.pool.query(
    `SELECT coalesce(max(id), 0)::bigint AS max FROM "${DELIVERIES_TABLE}"`,
  );
  return rows[0].max;
}

/**
 * Resolves when `expected` delivery records (ids above `afterId`) of the tenant's subscriptions are
 * committed, with the time that was seen. The receiver's count is watched first (cheap); the table
 * is polled slowly until then and every 10 ms after, so polling hardly loads the database.
 * Without the table, the receiver's count stands in (noted).
 */
async function waitForDeliveries(range, afterId, expected, timeoutS) {
  const deadline = now() + timeoutS * 1000;
  let lastDbPoll = 0;
  for (;;) {
    const t = now();
    const received = (await ipcRequest(ctx.receiver, { cmd: 'stats' })).count;
    if (!ctx.deliveriesTable) {
      if (received >= expected) return { at: t, records: null, failed: null, received };
    } else if (received >= expected || t - lastDbPoll > 250) {
      lastDbPoll = t;
      const { rows } = await ctx.pool.query(
        `SELECT count(*)::int AS n, count(*) FILTER (WHERE status <> 'SUCCESS')::int AS failed
           FROM "${DELIVERIES_TABLE}" WHERE id > $1 AND subscription_id BETWEEN $2 AND $3`,
        [afterId, range.min, range.max],
      );
      if (rows[0].n >= expected) return { at: now(), records: rows[0].n, failed: rows[0].failed, received };
    }
    if (now() > deadline) return { timedOut: true, at: now(), received };
    await sleep(received >= expected ? 10 : 20);
  }
}

/** Publish-to-receipt latencies: receipt time minus the publish (release) time of its event. */
function receiptLatencies(receipts, releaseOf) {
  const values = [];
  let unknown = 0;
  for (const [code, at] of receipts) {
    const t = releaseOf[code];
    if (t === undefined) unknown++;
    else values.push(at - t);
  }
  return { ...latencySummary(values), unknown };
}

async function resetReceiver() {
  await ipcRequest(ctx.receiver, { cmd: 'reset' });
}

/** Publishes `codes` (at most `parallel` in flight, or one every `paceMs`), waits for every record. */
async function runServiceDispatch(range, codes, { paceMs, parallel = 4 } = {}) {
  await resetReceiver();
  const afterId = await maxDeliveryId();
  const publishedAt = {};
  const acks = [];
  const expected = codes.length * range.count;
  const start = now();
  if (paceMs) {
    const inFlight = [];
    for (let k = 0; k < codes.length; k++) {
      const wait = start + k * paceMs - now();
      if (wait > 1) await sleep(wait);
      publishedAt[codes[k]] = now();
      inFlight.push(
        publish(range.tenant, codes[k]).then((r) => acks.push([r, now() - publishedAt[codes[k]]])),
      );
    }
    await Promise.all(inFlight);
  } else {
    let next = 0;
    const publisher = async () => {
      while (next < codes.length) {
        const code = codes[next++];
        publishedAt[code] = now();
        const r = await publish(range.tenant, code);
        acks.push([r, now() - publishedAt[code]]);
      }
    };
    await Promise.all(Array.from({ length: parallel }, publisher));
  }
  const published = now();
  for (const [r] of acks)
    if (r.matchedSubscriptions !== range.count)
      throw new Error(`an event matched ${r.matchedSubscriptions} subscriptions, expected ${range.count}`);
  const done = await waitForDeliveries(range, afterId, expected, size.waitTimeoutS);
  const { receipts, first, last } = await ipcRequest(ctx.receiver, { cmd: 'receipts' }, 120_000);
  return {
    start,
    published,
    done,
    expected,
    first,
    last,
    latency: receiptLatencies(receipts, publishedAt),
    publishAck: latencySummary(acks.map(([, ms]) => ms)),
    received: receipts.length,
  };
}

async function runBaselineDispatch(client, range, codes, { paceMs } = {}) {
  const timestamp = new Date().toISOString();
  const events = codes.map((code) => ({
    code,
    body: JSON.stringify({
      eventType: EVENT_TYPE,
      timestamp,
      tenant: range.tenant,
      licence: licence(code),
      error: null,
    }),
  }));
  await resetReceiver();
  const r = await ipcRequest(
    ctx.dispatchBaseline,
    { cmd: 'run', client, concurrency: ctx.concurrency, urls: range.urls, events, paceMs },
    size.waitTimeoutS * 1000 + 60_000,
  );
  const { receipts, first, last } = await ipcRequest(ctx.receiver, { cmd: 'receipts' }, 120_000);
  const total = codes.length * range.count;
  return {
    value: round(total / ((r.end - r.start) / 1000)),
    unit: 'deliveries/s',
    ok: r.ok,
    failed: r.failed,
    firstError: r.firstError,
    start: r.start,
    end: r.end,
    first,
    last,
    latency: receiptLatencies(receipts, r.releases),
  };
}

async function dispatchAvailable() {
  try {
    const res = await call(ctx.service.base, 'POST', '/admin/licence-events', {
      token: ctx.adminToken,
      body: { eventType: EVENT_TYPE, tenant: 'bench-nobody', licence: licence('BENCH-PROBE') },
    });
    if (res.status !== 202)
      return `POST /admin/licence-events answered ${res.status}${res.body?.message ? ` (${res.body.message})` : ''}`;
    return undefined;
  } catch (error) {
    return `POST /admin/licence-events failed: ${error.message}`;
  }
}

const median = (values) =>
  values.length === 0 ? null : [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];

const codesFor = (prefix, n) => Array.from({ length: n }, (_, k) => `BENCH-${prefix}-${k + 1}`);

function dispatchTargets() {
  return {
    dispatch: `≥${TARGETS.dispatchRatio}× axios and ≥${TARGETS.dispatchPerS.toLocaleString('en-US')}/s`,
    'dispatch-signing': `signed ≥${DISPATCH_SIGNING_TARGET}× unsigned`,
    'dispatch-paced': `p50 ≤${TARGETS.pacedP50Ms} ms at ${size.pacedRatePerS}/s`,
    'fan-out': `last ≤${TARGETS.fanOutLastMs.toLocaleString('en-US')} ms (of 5,000)`,
    sustained: `last/first ${size.sustainedS === 180 ? 'minute' : 'third'} ≥${TARGETS.sustainedRatio}`,
    backlog: `p50 ≤${TARGETS.backlogP50Ms} ms, p99 ≤${TARGETS.backlogP99Ms.toLocaleString('en-US')} ms`,
  };
}

async function dispatchFigures() {
  const figures = [
    'dispatch',
    'dispatch-signing',
    'dispatch-paced',
    'fan-out',
    'sustained',
    'backlog',
  ].filter(want);
  if (figures.length === 0) return;
  const targets = dispatchTargets();
  const reason = await dispatchAvailable();
  if (reason) {
    for (const f of figures) unavailable(f, reason, targets[f]);
    return;
  }
  const { rows } = await ctx.pool.query('SELECT to_regclass($1) IS NOT NULL AS exists', [DELIVERIES_TABLE]);
  ctx.deliveriesTable = rows[0].exists;
  const tableNote = ctx.deliveriesTable
    ? []
    : [`table ${DELIVERIES_TABLE} not found: end time is the last receipt, not the last committed record`];

  ctx.dispatchBaseline = forkTracked('baseline-dispatch', join(benchDir, 'baseline-dispatch.mjs'), {
    env: { ...process.env, NODE_EXTRA_CA_CERTS: ctx.certs.ca },
  });
  await waitForMessage(ctx.dispatchBaseline, 'ready');
  const basePid = ctx.dispatchBaseline.pid;

  if (want('dispatch'))
    await guarded(['dispatch'], targets, async () => {
      ctx.phase = 'dispatch';
      const E = size.dispatchEvents;
      const range = await seedReceiverTenant('bench-dispatch', size.dispatchSubscriptions);
      log(`dispatch: ${E} events × ${range.count} subscriptions = ${E * range.count} deliveries`);
      // The same warm-up burst for each side: connections, JIT, heap growth. (With one event of
      // warm-up the service's first burst ran at about 0.7 of its later ones.)
      const warm = size.dispatchWarmEvents;
      await runServiceDispatch(range, codesFor('WARM', warm));
      ctx.baselinePid = basePid;
      for (const client of ['axios', 'undici'])
        await runBaselineDispatch(client, range, codesFor(`WARM-${client}`, warm));
      ctx.baselinePid = undefined;
      // Rounds of service, axios, undici: a burst lasts seconds, and what else the shared machine
      // runs drifts over that time; alternating and taking the median round keeps one unlucky
      // burst from making the figure.
      const rounds = [];
      for (let k = 1; k <= size.dispatchRounds; k++) {
        const tag = size.dispatchRounds > 1 ? ` (round ${k})` : '';
        const service = await withCpu(
          `dispatch service${tag}`,
          () => runServiceDispatch(range, codesFor(`D${k}`, E)),
          (r) => r.expected,
        );
        service.value = round(service.expected / ((service.done.at - service.start) / 1000));
        log(
          `dispatch service${tag}: ${service.value} deliveries/s, latency p50 ${service.latency.p50} ms p99 ${service.latency.p99} ms`,
        );
        ctx.baselinePid = basePid;
        const baselines = {};
        for (const client of ['axios', 'undici']) {
          baselines[client] = await withCpu(
            `dispatch ${client}${tag}`,
            () => runBaselineDispatch(client, range, codesFor(`${client}${k}`, E)),
            (r) => r.ok + r.failed,
          );
          log(`dispatch ${client}${tag}: ${baselines[client].value} deliveries/s`);
        }
        ctx.baselinePid = undefined;
        rounds.push({ service, baselines, ratio: service.value / baselines.axios.value });
      }
      const { service, baselines } = [...rounds].sort((a, b) => a.ratio - b.ratio)[
        Math.floor(rounds.length / 2)
      ];
      const value = service.value;
      const notes = [
        ...tableNote,
        'p50/p99: publish-to-receipt of the burst (each delivery waits behind the backlog of the whole burst)',
      ];
      if (rounds.length > 1)
        notes.push(
          `median of ${rounds.length} rounds (service, axios, undici in turn) by ratio; ratios ${rounds
            .map((r) => round(r.ratio, 2))
            .join(', ')}`,
        );
      for (const [k, r] of rounds.entries()) {
        const tag = rounds.length > 1 ? `round ${k + 1}: ` : '';
        if (r.service.done.timedOut)
          notes.push(
            `${tag}timed out after ${size.waitTimeoutS} s: ${r.service.done.received} of ${r.service.expected} received`,
          );
        if (r.service.done.failed) notes.push(`${tag}${r.service.done.failed} deliveries FAILED`);
        for (const client of ['axios', 'undici'])
          if (r.baselines[client].failed)
            notes.push(
              `${tag}${client}: ${r.baselines[client].failed} failed (${r.baselines[client].firstError})`,
            );
      }
      const ratio = round(value / baselines.axios.value, 2);
      // CPU per delivery, the median over the rounds: steadier than throughput on a shared machine.
      const cpuMs = (pick) => median(rounds.map(pick).filter((v) => v !== undefined));
      const cpuMsPerDelivery = {
        service: cpuMs((r) => r.service.cpu.msPerUnit.service),
        postgres: cpuMs((r) => r.service.cpu.msPerUnit.postgres),
        axios: cpuMs((r) => r.baselines.axios.cpu.msPerUnit.baseline),
        'axios postgres': cpuMs((r) => r.baselines.axios.cpu.msPerUnit.postgres),
      };
      notes.push(
        `CPU per delivery (median of ${rounds.length}): service ${cpuMsPerDelivery.service} ms, ` +
          `PostgreSQL ${cpuMsPerDelivery.postgres} ms; raw axios ${cpuMsPerDelivery.axios} ms`,
      );
      ctx.figures.push({
        figure: 'dispatch',
        unit: 'deliveries/s',
        value,
        p50: service.latency.p50,
        p99: service.latency.p99,
        baseline: baselines.axios.value,
        ratio,
        ratioUndici: round(value / baselines.undici.value, 2),
        baselines: Object.fromEntries(
          Object.entries(baselines).map(([k, b]) => [
            k,
            { value: b.value, unit: b.unit, p50: b.latency.p50, p99: b.latency.p99, failed: b.failed },
          ]),
        ),
        events: E,
        subscriptionsPerEvent: range.count,
        deliveries: service.expected,
        cpuMsPerDelivery,
        concurrency: ctx.concurrency,
        receiverPorts: ctx.receiverPorts.length,
        publishMs: round(service.published - service.start),
        lastReceiptMs: round(service.last - service.start),
        lastRecordMs: round(service.done.at - service.start),
        latency: service.latency,
        publishAck: service.publishAck,
        failed: service.done.failed,
        rounds: rounds.map((r) => ({
          service: r.service.value,
          axios: r.baselines.axios.value,
          undici: r.baselines.undici.value,
          ratio: round(r.ratio, 2),
        })),
        target: targets.dispatch,
        pass: ratio >= TARGETS.dispatchRatio && value >= TARGETS.dispatchPerS,
        notes,
      });
    });

  if (want('dispatch-signing'))
    await guarded(['dispatch-signing'], targets, async () => {
      ctx.phase = 'dispatch-signing';
      await dispatchSigningFigure({
        ctx,
        size,
        log,
        round,
        median,
        seedReceiverTenant,
        runServiceDispatch,
        withCpu,
        codesFor,
      });
    });

  if (want('dispatch-paced'))
    await guarded(['dispatch-paced'], targets, async () => {
      ctx.phase = 'dispatch-paced';
      const perEvent = size.pacedSubscriptions;
      const eventsPerS = size.pacedRatePerS / perEvent;
      const paceMs = 1000 / eventsPerS;
      const n = Math.round(size.pacedDurationS * eventsPerS);
      const range = await seedReceiverTenant('bench-paced', perEvent);
      log(`dispatch-paced: ${n} events × ${perEvent} subscriptions, one event every ${paceMs} ms`);
      await runServiceDispatch(range, codesFor('PWARM', 1));
      const service = await withCpu(
        'dispatch-paced service',
        () => runServiceDispatch(range, codesFor('P', n), { paceMs }),
        (r) => r.expected,
      );
      ctx.baselinePid = basePid;
      await runBaselineDispatch('axios', range, codesFor('PWARM-axios', 1));
      const axiosPaced = await withCpu(
        'dispatch-paced axios',
        () => runBaselineDispatch('axios', range, codesFor('P-axios', n), { paceMs }),
        (r) => r.ok + r.failed,
      );
      ctx.baselinePid = undefined;
      const notes = [...tableNote];
      if (service.done.timedOut)
        notes.push(`timed out: ${service.done.received} of ${service.expected} received`);
      const achieved = round(service.expected / ((service.done.at - service.start) / 1000));
      log(
        `dispatch-paced service: p50 ${service.latency.p50} ms, p99 ${service.latency.p99} ms (${achieved}/s)`,
      );
      ctx.figures.push({
        figure: 'dispatch-paced',
        unit: 'ms',
        value: service.latency.p50,
        p50: service.latency.p50,
        p99: service.latency.p99,
        baseline: axiosPaced.latency.p50,
        ratio:
          service.latency.p50 && axiosPaced.latency.p50
            ? round(service.latency.p50 / axiosPaced.latency.p50, 2)
            : null,
        baselines: {
          'axios paced': {
            value: axiosPaced.latency.p50,
            unit: 'ms',
            p50: axiosPaced.latency.p50,
            p99: axiosPaced.latency.p99,
          },
        },
        ratePerS: size.pacedRatePerS,
        achievedPerS: achieved,
        events: n,
        subscriptionsPerEvent: perEvent,
        latency: service.latency,
        publishAck: service.publishAck,
        target: targets['dispatch-paced'],
        pass: service.latency.p50 !== null && service.latency.p50 <= TARGETS.pacedP50Ms,
        notes: [
          ...notes,
          'publish-to-receipt: from sending POST /admin/licence-events to the receiver reading the body',
        ],
      });
    });

  if (want('fan-out'))
    await guarded(['fan-out'], targets, async () => {
      ctx.phase = 'fan-out';
      const range = await seedReceiverTenant('bench-fanout', size.fanOut);
      log(`fan-out: 1 event × ${range.count} subscriptions`);
      const service = await withCpu(
        'fan-out service',
        () => runServiceDispatch(range, ['BENCH-FANOUT-1']),
        (r) => r.expected,
      );
      ctx.baselinePid = basePid;
      const axiosFan = await withCpu(
        'fan-out axios',
        () => runBaselineDispatch('axios', range, ['BENCH-FANOUT-axios']),
        (r) => r.ok + r.failed,
      );
      ctx.baselinePid = undefined;
      const notes = [...tableNote];
      if (service.done.timedOut)
        notes.push(`timed out: ${service.done.received} of ${service.expected} received`);
      if (service.done.failed) notes.push(`${service.done.failed} deliveries FAILED`);
      const firstMs = service.first ? round(service.first - service.start) : null;
      const lastMs = service.last ? round(service.last - service.start) : null;
      const baseLast = round(axiosFan.last - axiosFan.start);
      log(`fan-out service: first ${firstMs} ms, last ${lastMs} ms; axios last ${baseLast} ms`);
      ctx.figures.push({
        figure: 'fan-out',
        unit: 'ms',
        value: lastMs,
        firstMs,
        lastMs,
        lastRecordMs: round(service.done.at - service.start),
        publishAckMs: service.publishAck.p50,
        baseline: baseLast,
        ratio: lastMs && baseLast ? round(lastMs / baseLast, 2) : null,
        baselines: {
          axios: {
            value: baseLast,
            unit: 'ms',
            firstMs: round(axiosFan.first - axiosFan.start),
            lastMs: baseLast,
          },
        },
        subscriptions: range.count,
        target: targets['fan-out'],
        pass: range.count >= 5000 ? lastMs !== null && lastMs <= TARGETS.fanOutLastMs : undefined,
        notes: [
          ...notes,
          'value: publish to last receipt; first receipt in firstMs' +
            (range.count < 5000 ? `; target applies to 5,000 (this run: ${range.count})` : ''),
        ],
      });
    });
  await stopChild(ctx.dispatchBaseline);

  // After the others: the backlog figure leaves a receiver origin that timed out behind it.
  if (want('sustained'))
    await guarded(['sustained'], targets, () => sustainedFigure(targets), size.sustainedS + 5);
  if (want('backlog'))
    await guarded(['backlog'], targets, () => backlogFigure(targets), 2 * size.backlogDurationS + 5);
}

// ---------------------------------------------------------------------------------------------
// Figures of cost over time: sustained dispatch, another tenant's stream beside a backlog

const tableBytes = async (table) =>
  Number((await ctx.pool.query('SELECT pg_total_relation_size($1)::bigint AS n', [table])).rows[0].n);
const receivedCount = async () => (await ipcRequest(ctx.receiver, { cmd: 'stats' })).count;

/**
 * Full-speed dispatch for `sustainedS`: four publishers keep `sustainedAheadDeliveries` deliveries
 * published ahead of the receipts, so the queue never runs dry and stays small, as at capacity.
 * The figure is the throughput (receipts) of the last third over the first, each with its CPU per
 * delivery: what grows meanwhile (records, events, dead job versions, autovacuum) shows as the gap.
 */
async function sustainedFigure(targets) {
  ctx.phase = 'sustained';
  const range = await seedReceiverTenant('bench-sustained', size.dispatchSubscriptions);
  const windowS = size.sustainedS / 3;
  const label = (which) => (windowS === 60 ? `${which} minute` : `${which} ${round(windowS, 1)} s`);
  log(`sustained: ${size.sustainedS} s of full-speed dispatch to ${range.count} subscriptions`);
  await runServiceDispatch(range, codesFor('SWARM', size.dispatchWarmEvents));
  await resetReceiver();
  const afterId = await maxDeliveryId();
  const bytesBefore = { jobs: await tableBytes('webhook_jobs'), records: await tableBytes(DELIVERIES_TABLE) };
  const start = now();
  const end = start + size.sustainedS * 1000;
  let published = 0; // deliveries, counted as each publish starts
  let received = 0;
  const timeline = []; // [seconds since start, receipts], about every second
  const sampler = async () => {
    while (now() < end) {
      received = await receivedCount();
      if (now() - start >= timeline.length * 1000)
        timeline.push([round((now() - start) / 1000, 1), received]);
      await sleep(50);
    }
  };
  const publisher = async () => {
    while (now() < end) {
      if (published - received >= size.sustainedAheadDeliveries) await sleep(5);
      else {
        published += range.count;
        await publish(range.tenant, `BENCH-S-${published / range.count}`);
      }
    }
  };
  const windows = {};
  const measureWindow = async (which, fromS) => {
    await sleep(start + fromS * 1000 - now());
    const stop = startCpuRun(`sustained service (${label(which)})`);
    const from = { at: now(), count: await receivedCount() };
    await sleep(from.at + windowS * 1000 - now());
    const to = { at: now(), count: await receivedCount() };
    const { service, postgres, receiver } = stop(to.count - from.count).msPerUnit;
    windows[which] = {
      value: round((to.count - from.count) / ((to.at - from.at) / 1000)),
      unit: 'deliveries/s',
      deliveries: to.count - from.count,
      cpuMsPerDelivery: { service, postgres, receiver },
    };
  };
  await Promise.all([
    sampler(),
    ...Array.from({ length: 4 }, publisher),
    measureWindow('first', 0),
    measureWindow('last', size.sustainedS - windowS),
  ]);
  const done = await waitForDeliveries(range, afterId, published, size.waitTimeoutS);
  const bytesAfter = { jobs: await tableBytes('webhook_jobs'), records: await tableBytes(DELIVERIES_TABLE) };
  await resetReceiver();
  const { first, last } = windows;
  const ratio = first.value ? round(last.value / first.value, 2) : null;
  const mb = (bytes) => round(bytes / 2 ** 20, 1);
  log(`sustained: first ${first.value}/s, last ${last.value}/s (${ratio})`);
  const notes = [
    `deliveries/s by receipts; ${label('first')} against the ${label('last')} of ${size.sustainedS} s, ` +
      `${published.toLocaleString('en-US')} deliveries to ${range.count} subscriptions`,
    `CPU per delivery, first → last: PostgreSQL ${first.cpuMsPerDelivery.postgres} → ${last.cpuMsPerDelivery.postgres} ms, ` +
      `service ${first.cpuMsPerDelivery.service} → ${last.cpuMsPerDelivery.service} ms`,
    // Once its connections are open the receiver does the same work for every delivery: what its
    // CPU per delivery does over minutes, the shared machine's speed does.
    `the receiver's CPU per delivery (a control for the machine's speed), ` +
      `first → last: ${first.cpuMsPerDelivery.receiver} → ${last.cpuMsPerDelivery.receiver} ms`,
    `webhook_jobs ${mb(bytesBefore.jobs)} → ${mb(bytesAfter.jobs)} MB, ${DELIVERIES_TABLE} ` +
      `${mb(bytesBefore.records)} → ${mb(bytesAfter.records)} MB (with indexes)`,
  ];
  if (done.timedOut) notes.push(`timed out: ${done.received} of ${published} received`);
  if (done.failed) notes.push(`${done.failed} deliveries FAILED`);
  ctx.figures.push({
    figure: 'sustained',
    unit: 'deliveries/s',
    value: last.value,
    baseline: first.value,
    ratio,
    baselines: { [label('first')]: first },
    windows,
    durationS: size.sustainedS,
    deliveries: published,
    subscriptions: range.count,
    timeline,
    tableBytes: { before: bytesBefore, after: bytesAfter },
    target: targets.sustained,
    pass: ratio !== null && !done.timedOut && ratio >= TARGETS.sustainedRatio,
    notes,
  });
}

/**
 * Another tenant's paced stream (one subscription, `backlogRatePerS` events a second) with and
 * without `backlogJobs` jobs pending for a receiver that never answers (the receiver's hanging
 * port, its own origin; jobs inserted with SQL). The service holds the hanging requests until its
 * WEBHOOK_TIMEOUT_MS; the bench then deletes the hanging subscription (its jobs go with it) and
 * drops the hung connections.
 */
async function backlogFigure(targets) {
  ctx.phase = 'backlog';
  const eventsPerS = size.backlogRatePerS;
  const paceMs = 1000 / eventsPerS;
  const n = Math.round(size.backlogDurationS * eventsPerS);
  const range = await seedReceiverTenant('bench-backlog', 1);
  const hangTenant = 'bench-backlog-hang';
  const { rows } = await ctx.pool.query(
    `INSERT INTO subscriptions (tenant, active, name, url, events)
     VALUES ($1, true, 'Bench hanging receiver', $2, ARRAY[$3]::varchar(64)[]) RETURNING id`,
    [hangTenant, `https://127.0.0.1:${ctx.hangPort}/hooks/hang`, EVENT_TYPE],
  );
  const hangId = rows[0].id;
  log(`backlog: ${n} events of bench-backlog, one every ${paceMs} ms, without and then with the backlog`);
  await runServiceDispatch(range, codesFor('BWARM', eventsPerS), { paceMs });
  const paced = (name, prefix) =>
    withCpu(
      name,
      () => runServiceDispatch(range, codesFor(prefix, n), { paceMs }),
      (r) => r.expected,
    );
  const baseline = await paced('backlog: paced, no backlog', 'B0');
  try {
    const started = now();
    const jobs = await insertBacklog(ctx.pool, {
      subscriptionId: hangId,
      tenant: hangTenant,
      jobs: size.backlogJobs,
      eventType: EVENT_TYPE,
      licence,
    });
    const pending = async () =>
      (
        await ctx.pool.query('SELECT count(*)::int AS n FROM webhook_jobs WHERE subscription_id = $1', [
          hangId,
        ])
      ).rows[0].n;
    // The worker meets the backlog first: the stream starts once the hanging receiver holds requests.
    const deadline = now() + 5000;
    while ((await ipcRequest(ctx.receiver, { cmd: 'hung' })).open === 0 && now() < deadline) await sleep(20);
    const pendingBefore = await pending();
    log(
      `backlog: ${jobs.toLocaleString('en-US')} jobs inserted in ${Math.round(now() - started)} ms; ` +
        `${pendingBefore.toLocaleString('en-US')} pending as the stream starts`,
    );
    const service = await paced(`backlog: paced, ${jobs.toLocaleString('en-US')} pending`, 'B1');
    const pendingAfter = await pending();
    const hung = await ipcRequest(ctx.receiver, { cmd: 'hung' });
    const { p50, p99 } = service.latency;
    log(
      `backlog: p50 ${p50} ms, p99 ${p99} ms; without: p50 ${baseline.latency.p50} ms, p99 ${baseline.latency.p99} ms`,
    );
    const notes = [
      `${eventsPerS} events/s of bench-backlog for ${size.backlogDurationS} s while ${pendingBefore.toLocaleString('en-US')} ` +
        `(at the end ${pendingAfter.toLocaleString('en-US')}) jobs of another tenant were pending for a receiver that ` +
        `never answers (${hung.total} requests reached it, ${hung.open} still open); baseline: the same stream without them`,
      'publish-to-receipt: from sending POST /admin/licence-events to the receiver reading the body',
    ];
    if (service.done.timedOut)
      notes.push(
        `timed out after ${size.waitTimeoutS} s: ${service.done.received} of ${service.expected} received`,
      );
    ctx.figures.push({
      figure: 'backlog',
      unit: 'ms',
      value: p50,
      p50,
      p99,
      baseline: baseline.latency.p50,
      ratio: p50 && baseline.latency.p50 ? round(p50 / baseline.latency.p50, 2) : null,
      baselines: {
        'no backlog': {
          value: baseline.latency.p50,
          unit: 'ms',
          p50: baseline.latency.p50,
          p99: baseline.latency.p99,
        },
      },
      backlogJobs: jobs,
      pendingBefore,
      pendingAfter,
      hangingRequests: hung,
      ratePerS: eventsPerS,
      events: n,
      latency: service.latency,
      publishAck: service.publishAck,
      target: targets.backlog,
      pass:
        !service.done.timedOut && p50 !== null && p50 <= TARGETS.backlogP50Ms && p99 <= TARGETS.backlogP99Ms,
      notes,
    });
  } finally {
    await ctx.pool.query('DELETE FROM subscriptions WHERE id = $1', [hangId]);
    await ipcRequest(ctx.receiver, { cmd: 'release' });
  }
}

// ---------------------------------------------------------------------------------------------

function memoryFigure() {
  const m = memoryOf(ctx.service.pid);
  const peak = Math.max(ctx.memory.peakHwmMb, m?.hwmMb ?? 0);
  ctx.figures.push({
    figure: 'memory (peak RSS)',
    unit: 'MB',
    value: round(peak, 1),
    baseline: null,
    ratio: null,
    peakSampledRssMb: round(ctx.memory.peakRssMb, 1),
    rssWhenReadyMb: ctx.memory.readyMb,
    rssAfterSetUpMb: ctx.memory.afterSeedMb,
    rssByPhaseMb: ctx.memory.phases,
    target: `≤${TARGETS.memoryMb} MB`,
    pass: peak <= TARGETS.memoryMb,
    notes: [
      'VmHWM of the service process (node); the embedded PostgreSQL is a separate process',
      `RSS ${ctx.memory.readyMb} MB when ready; highest RSS sampled in each phase: ` +
        Object.entries(ctx.memory.phases)
          .map(([phase, mb]) => `${phase} ${Math.round(mb)}`)
          .join(', ') +
        ' MB',
    ],
  });
}

async function main() {
  installExitHandlers();
  const started = now();
  ctx.started = started;
  ctx.loadAtStart = loadavg().map((l) => round(l, 2));
  const tmp = makeTempDir('pis-bench-');
  // As root the embedded PostgreSQL runs as `postgres`, which must be able to enter DATA_DIR's parents.
  chmodSync(tmp, 0o711);
  const dataDir = join(tmp, 'data');
  ctx.certs = writeReceiverCertificates(tmp);

  ctx.receiver = forkTracked('receiver', join(benchDir, 'receiver.mjs'), {
    env: {
      ...process.env,
      RECEIVER_KEY: ctx.certs.key,
      RECEIVER_CERT: ctx.certs.cert,
      RECEIVER_PORT_COUNT: String(receiverPorts),
    },
  });
  const receiverReady = waitForMessage(ctx.receiver, 'ready');

  const databaseUrlGiven = Boolean(process.env.DATABASE_URL);
  const serviceDatabaseUrl = databaseUrlGiven
    ? await createDatabaseOnServer(process.env.DATABASE_URL)
    : undefined;
  const jwtSecret = randomBytes(48).toString('base64url');
  ctx.secretsKey = randomBytes(32).toString('base64'); // the bench seals signing secrets with it too
  const adminPassword = randomBytes(12).toString('hex');
  const partnerPassword = randomBytes(12).toString('hex');
  ctx.concurrency = Number(process.env.WEBHOOK_CONCURRENCY ?? 64);
  const profDir = join(tmp, 'cpu-profile');
  if (args.profile) mkdirSync(profDir);

  log(
    `mode ${mode}; starting the service (${databaseUrlGiven ? 'DATABASE_URL server, fresh database' : 'embedded PostgreSQL'})`,
  );
  ctx.service = await startService({
    repoRoot,
    dataDir,
    logFile: join(tmp, 'service.log'),
    nodeArgs: [
      ...(args.profile ? ['--cpu-prof', `--cpu-prof-dir=${profDir}`] : []),
      ...(args['node-args']?.split(/\s+/).filter(Boolean) ?? []),
    ],
    env: {
      NODE_ENV: 'production',
      LOG_LEVEL: 'warn',
      JWT_SECRET: jwtSecret,
      SECRETS_KEY: ctx.secretsKey,
      BOOTSTRAP_ADMIN_EMAIL: 'bench-admin@example.com',
      BOOTSTRAP_ADMIN_PASSWORD: adminPassword,
      RATE_LIMIT_API_PER_MINUTE: '100000000',
      RATE_LIMIT_LOGIN_PER_MINUTE: '100000',
      WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true',
      NODE_EXTRA_CA_CERTS: ctx.certs.ca,
      ...(serviceDatabaseUrl ? { DATABASE_URL: serviceDatabaseUrl } : {}),
    },
  });
  const stopMemory = trackMemory();
  ctx.memory.readyMb = round(memoryOf(ctx.service.pid)?.rssMb, 1);
  ctx.databaseUrl = serviceDatabaseUrl ?? embeddedDatabaseUrl(dataDir);
  ctx.pool = new pg.Pool({ connectionString: ctx.databaseUrl, max: 3 });
  ctx.pool.on('error', () => undefined);
  onCleanup(() => ctx.pool.end());
  onCleanup(() => closeHttpClient());
  const { rows } = await ctx.pool.query('SELECT pg_backend_pid() AS pid');
  ctx.postmasterPid = postmasterOf(rows[0].pid);
  ({ ports: ctx.receiverPorts, hangPort: ctx.hangPort } = await receiverReady);
  log(`service ready in ${Math.round(now() - started)} ms (pid ${ctx.service.pid})`);

  ctx.phase = 'set-up (logins: argon2)';
  ctx.adminToken = await login('bench-admin@example.com', adminPassword);
  const tokens = {
    // One user per API figure: the rate limiter's per-token state of one figure does not weigh on the next.
    reader: await createPartner(ctx.adminToken, 'bench-reader@example.com', partnerPassword, 'bench-main'),
    me: await createPartner(ctx.adminToken, 'bench-me@example.com', partnerPassword, 'bench-main'),
    writer: await createPartner(ctx.adminToken, 'bench-writer@example.com', partnerPassword, 'bench-writer'),
    history: want('history')
      ? await createPartner(ctx.adminToken, 'bench-history@example.com', partnerPassword, 'bench-main')
      : undefined,
  };
  await seedSubscriptions();
  ctx.memory.afterSeedMb = round(memoryOf(ctx.service.pid)?.rssMb, 1);
  const apiTarget = `≥${TARGETS.apiRatio}× same-work, p99 ≤${TARGETS.apiP99Ms} ms`;
  await guarded(
    ['api-read', 'api-me', 'api-write'].filter(want),
    { 'api-read': apiTarget, 'api-me': apiTarget },
    () => apiFigures(tokens, jwtSecret),
  );
  await guarded(
    ['dispatch', 'dispatch-signing', 'dispatch-paced', 'fan-out', 'sustained', 'backlog'].filter(want),
    dispatchTargets(),
    () => dispatchFigures(),
  );
  if (want('history'))
    await guarded(
      ['history'],
      { history: historyTarget() },
      () => historyFigure(tokens),
      size.historyTotal / 25_000 + 2 * (size.warmupS + size.durationS),
    );
  memoryFigure();
  stopMemory();
  if (args.hold) {
    log(`holding (Ctrl-C to stop): service ${ctx.service.base}, database ${ctx.databaseUrl}`);
    log(`admin token: ${ctx.adminToken}`);
    log(`reader token: ${tokens.reader}`);
    await new Promise(() => undefined);
  }

  let profile;
  if (args.profile) {
    ctx.phase = 'stop';
    await ctx.service.stop();
    const file = readdirSync(profDir).find((f) => f.endsWith('.cpuprofile'));
    if (file) {
      const kept = join(tmpdir(), `pis-bench-${Date.now()}.cpuprofile`);
      copyFileSync(join(profDir, file), kept);
      profile = summariseCpuProfile(kept, 40, ctx.profileWindows);
    } else log('no .cpuprofile was written');
  }

  const meta = {
    mode,
    date: new Date().toISOString(),
    node: process.version,
    cpus: cpus().length,
    cpuModel: cpus()[0]?.model,
    loadAverageAtStart: ctx.loadAtStart,
    loadAverageAtEnd: loadavg().map((l) => round(l, 2)),
    database: databaseUrlGiven
      ? 'DATABASE_URL server (fresh database)'
      : 'embedded PostgreSQL (fresh DATA_DIR)',
    sizes: size,
    receiverPorts: ctx.receiverPorts.length,
    webhookConcurrency: ctx.concurrency,
    elapsedS: round((now() - started) / 1000, 1),
    notes: [
      'ratio = value / first baseline; for ms figures lower is better, so a ratio above 1 means slower than the baseline',
      'all processes (service, PostgreSQL, load generator, receiver, baselines) share this machine',
    ],
  };
  writeFileSync(
    args.output,
    JSON.stringify({ meta, figures: ctx.figures, cpu: ctx.cpuRuns, profile }, null, 2) + '\n',
  );

  const lines = [
    '',
    `Partner Integration Service bench (${mode}; ${meta.cpus} CPUs; ${meta.database}; ${size.connections} connections, ${size.durationS} s per API run)`,
    '',
    formatTable(ctx.figures),
    '',
    'Ratio: value / baseline (for ms figures a ratio above 1 is slower than the baseline).',
    '',
    'CPU during each measured run (% of one core; bench = this process, the load generator):',
    formatCpuTable(ctx.cpuRuns),
  ];
  for (const f of ctx.figures) for (const note of f.notes ?? []) lines.push(`note ${f.figure}: ${note}`);
  if (profile) lines.push('', formatProfile(profile));
  lines.push('', `results: ${args.output}; total ${meta.elapsedS} s`);
  console.log(lines.join('\n'));
}

let exitCode = 0;
try {
  await main();
  if (args.strict && ctx.figures.some((f) => f.error)) exitCode = 1;
} catch (error) {
  exitCode = 1;
  log(`failed: ${error?.stack ?? error}`);
} finally {
  await cleanupAll();
}
process.exit(exitCode);
