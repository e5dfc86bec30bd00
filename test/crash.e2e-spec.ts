import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { SecretBox } from '../src/common/crypto/secret-box';
import { sealedIn } from '../src/subscriptions/sealed-columns';
import { createTestDatabase, dropTestDatabase } from './support/database';
import { licence, sleep } from './support/dispatcher';
import { Receipt, Receiver } from './support/receiver';
import { buildService, ServiceProcess } from './support/service-process';
import { testCa } from './support/test-ca';
import { uniq } from './support/test-app';

const ADMIN = { email: 'admin@example.com', password: 'admin-password-1' };
const SECRETS_KEY = randomBytes(32).toString('base64');

async function query<T = Record<string, any>>(
  url: string,
  sql: string,
  params: unknown[] = [],
): Promise<T[]> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return (await client.query(sql, params)).rows as T[];
  } finally {
    await client.end();
  }
}

async function waitUntil(what: string, probe: () => Promise<boolean>, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await probe())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(100);
  }
}

/** Subscriptions inserted with SQL (the child owns no test helpers); header sealed with SECRETS_KEY. */
async function subscribe(url: string, tenant: string, receivers: Receiver[]): Promise<number[]> {
  const box = SecretBox.withKey(Buffer.from(SECRETS_KEY, 'base64'));
  const ids: number[] = [];
  for (const r of receivers) {
    // The id first: the header value is sealed for its row.
    const [{ id }] = await query(
      url,
      `SELECT nextval(pg_get_serial_sequence('subscriptions', 'id'))::int AS id`,
    );
    const [row] = await query(
      url,
      `INSERT INTO subscriptions (id, tenant, name, url, events, header_name, header_value_encrypted)
       VALUES ($5, $1, $2, $3, ARRAY['LICENCE_CREATED_SUCCESS']::varchar[], 'X-Hook-Key', $4) RETURNING id`,
      [tenant, uniq('sub'), r.url(), box.seal('hook-key', sealedIn.headerValue(id)), id],
    );
    ids.push(row.id);
  }
  return ids;
}

async function adminToken(service: ServiceProcess): Promise<string> {
  const res = await fetch(`${service.url}/auth/login`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(ADMIN),
  });
  if (res.status !== 200) throw new Error(`login failed: ${res.status}`);
  return ((await res.json()) as { token: string }).token;
}

async function publish(
  service: ServiceProcess,
  token: string,
  tenant: string,
  count: number,
): Promise<string[]> {
  const codes: string[] = [];
  for (let i = 0; i < count; i++) {
    const lic = licence();
    const res = await fetch(`${service.url}/admin/licence-events`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
      body: JSON.stringify({ eventType: 'LICENCE_CREATED_SUCCESS', tenant, licence: lic }),
    });
    if (res.status !== 202) throw new Error(`publish failed: ${res.status} ${await res.text()}`);
    codes.push(lic.code);
  }
  return codes;
}

/** Records per (licence code, subscription), from the history table. */
async function recordsByJob(url: string): Promise<Map<string, number>> {
  const rows = await query<{ code: string; subscription_id: number; n: number }>(
    url,
    `SELECT e.payload->'licence'->>'code' AS code, d.subscription_id, count(*)::int AS n
     FROM webhook_deliveries d JOIN webhook_events e ON e.id = d.event_id
     GROUP BY 1, 2`,
  );
  return new Map(rows.map((r) => [`${r.code}/${r.subscription_id}`, r.n]));
}

function receiptsByJob(receivers: Receiver[], subIds: number[]): Map<string, Receipt[]> {
  const out = new Map<string, Receipt[]>();
  receivers.forEach((r, i) => {
    for (const receipt of r.receipts) {
      const key = `${receipt.body.licence.code}/${subIds[i]}`;
      out.set(key, [...(out.get(key) ?? []), receipt]);
    }
  });
  return out;
}

describe('Dispatcher across processes: crash recovery and several instances', () => {
  let main: string;
  let removeBuild: () => Promise<void>;
  const services: ServiceProcess[] = [];
  const receivers: Receiver[] = [];
  const databases: string[] = [];

  const env = (databaseUrl: string, extra: Record<string, string> = {}) => ({
    DATABASE_URL: databaseUrl,
    NODE_EXTRA_CA_CERTS: testCa().certFile,
    JWT_SECRET: 'crash-test-jwt-secret-crash-test-jwt-secret',
    SECRETS_KEY,
    WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true',
    BOOTSTRAP_ADMIN_EMAIL: ADMIN.email,
    BOOTSTRAP_ADMIN_PASSWORD: ADMIN.password,
    ...extra,
  });
  const start = async (databaseUrl: string, extra: Record<string, string> = {}) => {
    const service = await ServiceProcess.start(main, env(databaseUrl, extra));
    services.push(service);
    return service;
  };
  const database = async () => {
    const db = await createTestDatabase();
    databases.push(db.name);
    return db.url;
  };
  const receiver = async (delayMs: number) => {
    const r = await Receiver.start(testCa().server, { status: 200, delayMs });
    receivers.push(r);
    return r;
  };

  beforeAll(async () => {
    ({ main, remove: removeBuild } = await buildService());
  }, 180_000);
  afterAll(async () => {
    for (const s of services) await s.stop('SIGKILL');
    for (const r of receivers) await r.close();
    for (const name of databases) await dropTestDatabase(name);
    await removeBuild?.();
  });

  it('loses nothing when an instance is killed with deliveries in flight', async () => {
    const url = await database();
    const hooks = [await receiver(1000), await receiver(1000), await receiver(1000), await receiver(1000)];
    const tenant = uniq('tenant');
    const subIds = await subscribe(url, tenant, hooks);
    // 8 slots, 2 per receiver; lease 3000 + 2000 ms.
    const extra = { WEBHOOK_TIMEOUT_MS: '3000', WEBHOOK_CONCURRENCY: '8' };

    const first = await start(url, extra);
    const codes = await publish(first, await adminToken(first), tenant, 10);
    const jobs = codes.length * hooks.length;
    // Kill once some deliveries are recorded, with the next ones in flight.
    await waitUntil(
      'first records',
      async () => (await query(url, `SELECT 1 FROM webhook_deliveries LIMIT 4`)).length >= 4,
      20_000,
    );
    await first.stop('SIGKILL');
    const [{ done }] = await query(url, `SELECT count(*)::int AS done FROM webhook_deliveries`);
    const receivedBeforeCrash = hooks.reduce((n, h) => n + h.receipts.length, 0);
    expect(done).toBeLessThan(jobs);
    expect(receivedBeforeCrash).toBeGreaterThan(done); // some were in flight when it died

    const second = await start(url, extra);
    await waitUntil(
      'every job done',
      async () => (await query(url, `SELECT 1 FROM webhook_jobs LIMIT 1`)).length === 0,
      60_000,
    );
    await sleep(300);

    const records = await recordsByJob(url);
    const receipts = receiptsByJob(hooks, subIds);
    let duplicates = 0;
    for (const code of codes) {
      for (const subId of subIds) {
        const key = `${code}/${subId}`;
        expect({ key, records: records.get(key) }).toEqual({ key, records: 1 });
        const got = receipts.get(key) ?? [];
        expect({ key, received: got.length > 0 }).toEqual({ key, received: true });
        expect(new Set(got.map((r) => r.raw)).size).toBe(1); // copies are identical
        expect(got.every((r) => r.headers['x-hook-key'] === 'hook-key')).toBe(true);
        duplicates += got.length - 1;
      }
    }
    expect(records.size).toBe(jobs);
    console.log(
      `crash test: ${jobs} jobs, ${receivedBeforeCrash} requests before SIGKILL (${done} recorded), ` +
        `${jobs + duplicates} requests in all, ${duplicates} duplicates (cut off by the crash, sent again)`,
    );
    await expect(second.stop('SIGTERM')).resolves.toBe(0);
  }, 120_000);

  it('delivers a resend in flight when the instance is killed, after the restart', async () => {
    const url = await database();
    const hook = await receiver(0);
    const tenant = uniq('tenant');
    const [subId] = await subscribe(url, tenant, [hook]);
    const extra = { WEBHOOK_TIMEOUT_MS: '3000' };
    const records = () =>
      query(url, `SELECT status, trigger FROM webhook_deliveries WHERE subscription_id = $1 ORDER BY id`, [
        subId,
      ]);

    const first = await start(url, extra);
    const token = await adminToken(first);
    hook.behaviour = { status: 500 };
    await publish(first, token, tenant, 1);
    await waitUntil('the failed delivery', async () => (await records()).length === 1, 20_000);
    const [failed] = await query(url, `SELECT id FROM webhook_deliveries WHERE subscription_id = $1`, [
      subId,
    ]);

    // The resend's receiver hangs: the instance dies with it in flight.
    hook.behaviour = { hang: true };
    const res = await fetch(`${first.url}/webhooks/subscriptions/${subId}/deliveries/${failed.id}/resend`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}` },
    });
    expect(res.status).toBe(202);
    await hook.waitFor(2);
    await first.stop('SIGKILL');
    hook.behaviour = { status: 200 };

    const second = await start(url, extra);
    await waitUntil(
      'the resend done',
      async () => (await query(url, `SELECT 1 FROM webhook_jobs LIMIT 1`)).length === 0,
      60_000,
    );
    await expect(records()).resolves.toEqual([
      { status: 'FAILED', trigger: 'EVENT' },
      { status: 'SUCCESS', trigger: 'RESEND' },
    ]);
    // At least once: the copy cut off by the crash, then the one answered; all identical.
    expect(hook.receipts.length).toBeGreaterThanOrEqual(3);
    expect(new Set(hook.receipts.map((r) => r.raw)).size).toBe(1);
    await expect(second.stop('SIGTERM')).resolves.toBe(0);
  }, 120_000);

  it('shares the work between two instances on one database, each job delivered once', async () => {
    const url = await database();
    const hooks = [await receiver(150), await receiver(150)];
    const tenant = uniq('tenant');
    const subIds = await subscribe(url, tenant, hooks);
    // 1 in flight per receiver per instance, so both instances are needed to keep up.
    const extra = { WEBHOOK_TIMEOUT_MS: '3000', WEBHOOK_CONCURRENCY: '4' };
    const [a, b] = await Promise.all([start(url, extra), start(url, extra)]);

    const codes = await publish(a, await adminToken(a), tenant, 20);
    const jobs = codes.length * hooks.length;
    const owners = new Set<string>();
    await waitUntil(
      'every job done',
      async () => {
        const rows = await query<{ leased_by: string | null }>(url, `SELECT leased_by FROM webhook_jobs`);
        for (const row of rows) if (row.leased_by) owners.add(row.leased_by);
        return rows.length === 0;
      },
      60_000,
    );
    expect(owners.size).toBe(2); // both instances claimed jobs

    const records = await recordsByJob(url);
    const receipts = receiptsByJob(hooks, subIds);
    for (const code of codes) {
      for (const subId of subIds) {
        const key = `${code}/${subId}`;
        expect({ key, records: records.get(key), received: receipts.get(key)?.length }).toEqual({
          key,
          records: 1,
          received: 1,
        });
      }
    }
    expect(hooks.reduce((n, h) => n + h.receipts.length, 0)).toBe(jobs);
    const exits = await Promise.all([a.stop('SIGTERM'), b.stop('SIGTERM')]);
    expect(exits).toEqual([0, 0]);
  }, 120_000);
  it('stops accepting requests at SIGTERM while in-flight deliveries finish, then exits 0', async () => {
    const url = await database();
    const hook = await Receiver.start(testCa().server, { status: 200, delayMs: 2500 });
    receivers.push(hook);
    const tenant = uniq('tenant');
    const [subId] = await subscribe(url, tenant, [hook]);
    const service = await start(url, { SHUTDOWN_GRACE_MS: '10000' });
    await publish(service, await adminToken(service), tenant, 1);
    await hook.waitFor(1);

    const exit = service.stop('SIGTERM');
    // The delivery's answer is 2.5 s away: the process is still draining, and refuses connections.
    await waitUntil(
      'new connections refused',
      async () =>
        fetch(`${service.url}/health/live`).then(
          () => false,
          () => true,
        ),
      1500,
    );
    expect(service.child.exitCode).toBeNull();
    expect(await exit).toBe(0);
    // The in-flight delivery finished within the grace period and was recorded.
    await expect(
      query(url, `SELECT status FROM webhook_deliveries WHERE subscription_id = $1`, [subId]),
    ).resolves.toEqual([{ status: 'SUCCESS' }]);
  }, 60_000);
});
