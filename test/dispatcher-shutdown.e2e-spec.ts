import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { WebhookEvent } from '../src/common/reference/enums';
import { LicenceCreatedSuccessEvent } from '../src/licence-events/licence-created-success.event';
import { LicenceEventPublisher } from '../src/dispatcher/licence-event.publisher';
import { createTestDatabase, dropTestDatabase } from './support/database';
import { createSubscription, licence, startDispatcherApp } from './support/dispatcher';
import { Receiver } from './support/receiver';
import { testCa } from './support/test-ca';
import { uniq } from './support/test-app';

/** Queries a database the app under test no longer holds. */
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

async function eventually<T>(
  probe: () => Promise<T>,
  ok: (value: T) => boolean,
  timeoutMs = 10_000,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (ok(value) || Date.now() > deadline) return value;
    await new Promise((r) => setTimeout(r, 50));
  }
}

describe('Dispatcher: graceful shutdown', () => {
  const receivers: Receiver[] = [];
  const databases: string[] = [];
  const secretsKey = randomBytes(32).toString('base64');

  const database = async () => {
    const db = await createTestDatabase();
    databases.push(db.name);
    return db.url;
  };
  afterAll(async () => {
    for (const r of receivers) await r.close();
    for (const name of databases) await dropTestDatabase(name);
  });

  it('lets an in-flight delivery finish within the grace period, and records it', async () => {
    const url = await database();
    const hook = await Receiver.start(testCa().server, { status: 201, delayMs: 800 });
    receivers.push(hook);
    const t = await startDispatcherApp(
      { SHUTDOWN_GRACE_MS: '5000', WEBHOOK_TIMEOUT_MS: '5000', SECRETS_KEY: secretsKey },
      { databaseUrl: url },
    );
    const tenant = uniq('tenant');
    const sub = await createSubscription(t, { tenant, url: hook.url() });
    await t.app
      .get(LicenceEventPublisher)
      .emit(
        WebhookEvent.LICENCE_CREATED_SUCCESS,
        new LicenceCreatedSuccessEvent({ tenant, licence: licence() }),
      );
    await hook.waitFor(1);
    const started = Date.now();
    await t.close(); // the answer is still 800 ms away
    expect(Date.now() - started).toBeGreaterThanOrEqual(500);

    const records = await query(
      url,
      `SELECT status, http_status_code FROM webhook_deliveries WHERE subscription_id = $1`,
      [sub.id],
    );
    expect(records).toEqual([{ status: 'SUCCESS', http_status_code: 201 }]);
    await expect(query(url, `SELECT id FROM webhook_jobs`)).resolves.toEqual([]);
  });

  it('releases what is unfinished after the grace period, and the next start delivers it at once', async () => {
    const url = await database();
    const hook = await Receiver.start(testCa().server, { hang: true });
    receivers.push(hook);
    const env = { SHUTDOWN_GRACE_MS: '300', WEBHOOK_TIMEOUT_MS: '20000', SECRETS_KEY: secretsKey };
    const first = await startDispatcherApp(env, { databaseUrl: url });
    const tenant = uniq('tenant');
    const sub = await createSubscription(first, {
      tenant,
      url: hook.url(),
      headerName: 'X-Token',
      headerValue: 'token-value',
    });
    await first.app
      .get(LicenceEventPublisher)
      .emit(
        WebhookEvent.LICENCE_CREATED_SUCCESS,
        new LicenceCreatedSuccessEvent({ tenant, licence: licence() }),
      );
    await hook.waitFor(1);
    const started = Date.now();
    await first.close();
    expect(Date.now() - started).toBeLessThan(3000); // not the 20 s time-out

    // No record for the cut-off attempt; the job is back in the queue, unleased.
    await expect(query(url, `SELECT id FROM webhook_deliveries`)).resolves.toEqual([]);
    await expect(query(url, `SELECT lease_until, leased_by, attempts FROM webhook_jobs`)).resolves.toEqual([
      { lease_until: null, leased_by: null, attempts: 1 },
    ]);

    hook.behaviour = { status: 200 };
    const second = await startDispatcherApp(env, { databaseUrl: url });
    try {
      const receipts = await hook.waitFor(2, 3000); // at once, not after a lease
      expect(receipts[1].raw).toBe(receipts[0].raw); // same event, same timestamp: the receivers' duplicate key
      expect(receipts[1].headers['x-token']).toBe('token-value');
      const records = await eventually(
        () => query(url, `SELECT status FROM webhook_deliveries WHERE subscription_id = $1`, [sub.id]),
        (rows) => rows.length > 0,
      );
      expect(records).toEqual([{ status: 'SUCCESS' }]);
      await expect(query(url, `SELECT attempts FROM webhook_jobs`)).resolves.toEqual([]);
    } finally {
      await second.close();
    }
  });
});
