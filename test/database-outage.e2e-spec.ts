import { randomBytes } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { licence, sleep } from './support/dispatcher';
import { OwnPostgres } from './support/own-postgres';
import { Receiver } from './support/receiver';
import { buildService, freePort, ServiceProcess } from './support/service-process';
import { testCa } from './support/test-ca';

const ADMIN = { email: 'admin@example.com', password: 'admin-password-1' };
const TENANT = 'outage-tenant';

const env = (extra: Record<string, string> = {}) => ({
  NODE_EXTRA_CA_CERTS: testCa().certFile,
  JWT_SECRET: randomBytes(32).toString('base64url'),
  SECRETS_KEY: randomBytes(32).toString('base64'),
  WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true',
  BOOTSTRAP_ADMIN_EMAIL: ADMIN.email,
  BOOTSTRAP_ADMIN_PASSWORD: ADMIN.password,
  BOOTSTRAP_ADMIN_TENANT: TENANT,
  RATE_LIMIT_LOGIN_PER_MINUTE: '100000',
  RATE_LIMIT_API_PER_MINUTE: '100000',
  ...extra,
});

/** Characters of the service's output a failed call shows. */
const SERVICE_OUTPUT_SHOWN = 4_000;

interface Answer {
  status: number;
  retryAfter: string | null;
  body: Record<string, unknown>;
}

/**
 * One request on a connection of its own (`connection: close`): the sampling loop's parallel calls
 * leave pooled connections idle while others wait on the database, and one reused just as the
 * service closes it for idleness (5 s, contract section 8) gets no answer at all: the client's race,
 * not the service's. A request the service drops on its own connection still fails the test.
 */
async function call(
  service: ServiceProcess,
  path: string,
  init: { method?: string; token?: string; body?: unknown } = {},
): Promise<Answer> {
  const method = init.method ?? 'GET';
  const res = await fetch(`${service.url}${path}`, {
    method,
    headers: {
      connection: 'close',
      ...(init.body === undefined ? {} : { 'content-type': 'application/json' }),
      ...(init.token ? { authorization: `Bearer ${init.token}` } : {}),
    },
    body: init.body === undefined ? undefined : JSON.stringify(init.body),
  }).catch((error: Error) => {
    // No answer at all fails the test; what the service logged last is what tells why.
    const cause = error.cause instanceof Error ? `: ${error.cause.message}` : '';
    throw new Error(
      `${method} ${path} got no answer (${error.message}${cause}); the service's last output:\n` +
        service.output.slice(-SERVICE_OUTPUT_SHOWN),
      { cause: error },
    );
  });
  const text = await res.text();
  return {
    status: res.status,
    retryAfter: res.headers.get('retry-after'),
    body: text ? JSON.parse(text) : {},
  };
}

async function login(service: ServiceProcess): Promise<string> {
  const res = await call(service, '/auth/login', { method: 'POST', body: ADMIN });
  if (res.status !== 200) throw new Error(`login failed: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body.token as string;
}

async function waitUntil(what: string, probe: () => Promise<boolean>, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await probe())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(50);
  }
}

const ready = async (service: ServiceProcess) => (await call(service, '/health/ready')).status === 200;

/** What a request that needs the database gets while it is away: 503, Retry-After, the error body. */
function expectUnavailable(answer: Answer, path: string): void {
  expect(answer).toMatchObject({
    status: 503,
    retryAfter: expect.stringMatching(/^[1-9]\d*$/),
    body: { status: 503, error: 'Service Unavailable', message: 'Database unavailable', path },
  });
  expect(answer.body.requestId).toEqual(expect.any(String));
}

/** Requests and health checks, in a loop, while `during` runs: every answer they got. */
async function sample(service: ServiceProcess, token: string, during: () => Promise<void>) {
  const seen = { api: [] as Answer[], login: [] as Answer[], ready: [] as number[], live: [] as number[] };
  let running = true;
  const loop = (async () => {
    while (running) {
      const [api, signIn, readiness, liveness] = await Promise.all([
        call(service, '/webhooks/subscriptions', { token }),
        call(service, '/auth/login', { method: 'POST', body: ADMIN }),
        call(service, '/health/ready'),
        call(service, '/health/live'),
      ]);
      seen.api.push(api);
      seen.login.push(signIn);
      seen.ready.push(readiness.status);
      seen.live.push(liveness.status);
    }
  })();
  try {
    await during();
  } finally {
    running = false;
    await loop;
  }
  return seen;
}

describe('Database outage (contract section 8)', () => {
  let main: string;
  let removeBuild: () => Promise<void>;
  const services: ServiceProcess[] = [];
  const cleanups: Array<() => Promise<unknown>> = [];

  beforeAll(async () => {
    ({ main, remove: removeBuild } = await buildService());
  }, 180_000);
  afterAll(async () => {
    for (const s of services) await s.stop('SIGKILL');
    for (const clean of cleanups.reverse()) await clean().catch(() => undefined);
    await removeBuild?.();
  }, 60_000);

  it('starts a killed embedded PostgreSQL again: 503 with Retry-After meanwhile, then ready with the data intact', async () => {
    const service = await ServiceProcess.start(main, env());
    services.push(service);
    const token = await login(service);
    const hook = await Receiver.start(testCa().server, { status: 200 });
    cleanups.push(() => hook.close());
    const created = await call(service, '/webhooks/subscriptions', {
      method: 'POST',
      token,
      body: { name: 'kept', url: hook.url(), events: ['LICENCE_CREATED_SUCCESS'] },
    });
    expect(created.status).toBe(200);

    const postmasterPid = Number(
      readFileSync(join(service.dataDir, 'pg', 'postmaster.pid'), 'utf8').split('\n')[0],
    );
    const seen = await sample(service, token, async () => {
      await sleep(300);
      process.kill(postmasterPid, 'SIGKILL');
      await waitUntil('an unready answer', async () => !(await ready(service)), 10_000).catch(
        () => undefined,
      );
      await waitUntil('ready again', () => ready(service), 30_000);
    });

    // Restarted by the service itself: the same process, a new postmaster.
    expect(service.child.exitCode).toBeNull();
    const newPid = Number(readFileSync(join(service.dataDir, 'pg', 'postmaster.pid'), 'utf8').split('\n')[0]);
    expect(newPid).not.toBe(postmasterPid);
    expect(service.output).toMatch(/embedded PostgreSQL \(pid \d+\) died: starting it again/);

    expect(seen.live.every((s) => s === 200)).toBe(true);
    expect(seen.ready).toContain(503);
    for (const answer of seen.api.filter((a) => a.status !== 200))
      expectUnavailable(answer, '/webhooks/subscriptions');
    for (const answer of seen.login.filter((a) => a.status !== 200)) expectUnavailable(answer, '/auth/login');
    expect([...seen.api, ...seen.login].some((a) => a.status === 503)).toBe(true);

    // The data is intact, and the service works as before.
    const list = await call(service, '/webhooks/subscriptions', { token: await login(service) });
    expect(list.status).toBe(200);
    const items = list.body.content as Array<{ id: number }>;
    expect(items.map((s) => s.id)).toContain(created.body.id);
  }, 120_000);

  it('exits non-zero, for its supervisor to restart it, when the embedded PostgreSQL dies a sixth time in 10 minutes', async () => {
    const service = await ServiceProcess.start(main, env());
    services.push(service);
    // 0 while the file is away (removed before a restart).
    const postmaster = () => {
      const file = join(service.dataDir, 'pg', 'postmaster.pid');
      return existsSync(file) ? Number(readFileSync(file, 'utf8').split('\n')[0]) : 0;
    };
    const restarts = () => service.output.match(/embedded PostgreSQL started again/g)?.length ?? 0;
    const kill = () => {
      const pid = postmaster();
      expect(pid).toBeGreaterThan(0); // never kill(0): that is this test's own process group
      process.kill(pid, 'SIGKILL');
    };
    for (let death = 1; death <= 5; death++) {
      kill();
      // The service's own word that the new server is watched (a death before that is a retry).
      await waitUntil(`restart ${death}`, async () => restarts() === death && (await ready(service)), 30_000);
    }
    expect(service.child.exitCode).toBeNull();
    kill();
    await waitUntil('the service to exit', async () => service.child.exitCode !== null, 30_000);
    expect(service.child.exitCode).toBe(1);
    expect(service.output).toMatch(/embedded PostgreSQL died again after 5 restarts in 10 minutes/);
  }, 180_000);

  it('survives its own PostgreSQL server stopped and started under load: 503 meanwhile, every acknowledged event delivered, no restart', async () => {
    // A server of this test's own, from the embedded binaries, never the machine's shared one.
    const dbDir = await mkdtemp(join(tmpdir(), 'pis-outage-db-'));
    cleanups.push(() => rm(dbDir, { recursive: true, force: true }));
    const port = await freePort();
    let db = await OwnPostgres.start(main, dbDir, port);
    cleanups.push(() => db.stop());

    const service = await ServiceProcess.start(main, env({ DATABASE_URL: db.url, USER_CACHE_TTL_MS: '0' }));
    services.push(service);
    const token = await login(service);
    const hook = await Receiver.start(testCa().server, { status: 200 });
    cleanups.push(() => hook.close());
    const created = await call(service, '/webhooks/subscriptions', {
      method: 'POST',
      token,
      body: { name: 'outage', url: hook.url(), events: ['LICENCE_CREATED_SUCCESS'] },
    });
    expect(created.status).toBe(200);

    const acknowledged: string[] = [];
    const refused: Answer[] = [];
    let publishing = true;
    const publisher = (async () => {
      while (publishing) {
        const lic = licence();
        const answer = await call(service, '/admin/licence-events', {
          method: 'POST',
          token,
          body: { eventType: 'LICENCE_CREATED_SUCCESS', tenant: TENANT, licence: lic },
        });
        if (answer.status === 202) acknowledged.push(lic.code);
        else refused.push(answer);
      }
    })();

    const seen = await sample(service, token, async () => {
      await waitUntil('some events acknowledged', async () => acknowledged.length >= 5, 20_000);
      await db.stop();
      await waitUntil('an unready answer', async () => !(await ready(service)), 10_000);
      await waitUntil('refused publications', async () => refused.length >= 3, 10_000);
      db = await OwnPostgres.start(main, dbDir, port);
      await waitUntil('ready again', () => ready(service), 30_000);
      const before = acknowledged.length;
      await waitUntil('events acknowledged again', async () => acknowledged.length >= before + 5, 20_000);
    });
    publishing = false;
    await publisher;

    expect(service.child.exitCode).toBeNull();
    expect(seen.live.every((s) => s === 200)).toBe(true);
    expect(seen.ready).toContain(503);
    // The user check (USER_CACHE_TTL_MS=0: on every request) and the login need the database too.
    expect(seen.api.some((a) => a.status === 503)).toBe(true);
    expect(seen.login.some((a) => a.status === 503)).toBe(true);
    for (const answer of refused) expectUnavailable(answer, '/admin/licence-events');
    for (const answer of seen.api.filter((a) => a.status !== 200))
      expectUnavailable(answer, '/webhooks/subscriptions');
    for (const answer of seen.login.filter((a) => a.status !== 200)) expectUnavailable(answer, '/auth/login');

    // Deliveries resume by themselves: every acknowledged event reaches the receiver.
    const delivered = () => new Set(hook.receipts.map((r) => r.body.licence?.code as string));
    await waitUntil(
      `all ${acknowledged.length} acknowledged events delivered`,
      async () => acknowledged.every((code) => delivered().has(code)),
      60_000,
    ).catch(() => undefined);
    const missing = acknowledged.filter((code) => !delivered().has(code));
    expect({ acknowledged: acknowledged.length, missing }).toEqual({
      acknowledged: acknowledged.length,
      missing: [],
    });
    expect(service.child.exitCode).toBeNull();
  }, 180_000);
});
