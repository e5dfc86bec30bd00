import pg from 'pg';
import { SecretBox } from '../../src/common/crypto/secret-box';
import { sealedIn } from '../../src/subscriptions/sealed-columns';
import { createTestDatabase, dropTestDatabase } from './database';
import { licence, sleep } from './dispatcher';
import { Behaviour, Receiver } from './receiver';
import { buildService, ServiceProcess } from './service-process';
import { testCa } from './test-ca';
import { uniq } from './test-app';

/** Helpers for a service run as a child process (ServiceProcess): it shares no objects with the test. */

/**
 * The services, receivers and databases of one describe block: the service is built before its
 * tests (beforeAll), and everything is stopped, closed and dropped after them (afterAll).
 */
export class ChildServices {
  private main = '';
  private removeBuild: (() => Promise<void>) | undefined;
  private readonly services: ServiceProcess[] = [];
  private readonly receivers: Receiver[] = [];
  private readonly databases: string[] = [];

  private constructor() {}

  /** Call within a describe block. */
  static forSpec(): ChildServices {
    const fixture = new ChildServices();
    beforeAll(async () => {
      ({ main: fixture.main, remove: fixture.removeBuild } = await buildService());
    }, 180_000);
    afterAll(async () => {
      for (const s of fixture.services) await s.stop('SIGKILL');
      for (const r of fixture.receivers) await r.close();
      for (const name of fixture.databases) await dropTestDatabase(name);
      await fixture.removeBuild?.();
    });
    return fixture;
  }

  async start(env: Record<string, string>): Promise<ServiceProcess> {
    const service = await ServiceProcess.start(this.main, env);
    this.services.push(service);
    return service;
  }

  /** A new database from the migrated template; returns its URL. */
  async database(): Promise<string> {
    const db = await createTestDatabase();
    this.databases.push(db.name);
    return db.url;
  }

  /** A real HTTPS receiver with a certificate of the test CA. */
  async receiver(behaviour: Behaviour = { status: 200 }): Promise<Receiver> {
    const r = await Receiver.start(testCa().server, behaviour);
    this.receivers.push(r);
    return r;
  }
}

/** One statement on a connection of its own. */
export async function sql<T = Record<string, any>>(
  url: string,
  text: string,
  params: unknown[] = [],
): Promise<T[]> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return (await client.query(text, params)).rows as T[];
  } finally {
    await client.end();
  }
}

/** Polls `probe` every 50 ms until it holds; throws naming `what` after `timeoutMs`. */
export async function until(what: string, probe: () => Promise<boolean>, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await probe())) {
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await sleep(50);
  }
}

/** A subscription to LICENCE_CREATED_SUCCESS inserted with SQL, its custom header sealed with `secretsKey`. */
export async function insertSubscription(
  url: string,
  secretsKey: string,
  init: { tenant: string; receiver: Receiver; header?: [string, string] },
): Promise<number> {
  const box = SecretBox.withKey(Buffer.from(secretsKey, 'base64'));
  const [row] = await sql<{ id: number }>(
    url,
    `INSERT INTO subscriptions (tenant, name, url, events, header_name)
     VALUES ($1, $2, $3, ARRAY['LICENCE_CREATED_SUCCESS']::varchar[], $4) RETURNING id`,
    [init.tenant, uniq('sub'), init.receiver.url(), init.header?.[0] ?? null],
  );
  if (init.header) {
    // Sealed for its row, as the service seals it (contract 8, secrets at rest).
    const sealed = box.seal(init.header[1], sealedIn.headerValue(row.id));
    await sql(url, `UPDATE subscriptions SET header_value_encrypted = $2 WHERE id = $1`, [row.id, sealed]);
  }
  return row.id;
}

/** Logs in with the bootstrap administrator's credentials. */
export async function loginAs(
  service: ServiceProcess,
  credentials: { email: string; password: string },
): Promise<string> {
  const res = await fetch(`${service.url}/auth/login`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(credentials),
  });
  if (res.status !== 200) throw new Error(`login failed: ${res.status}`);
  return ((await res.json()) as { token: string }).token;
}

/** Publishes one LICENCE_CREATED_SUCCESS for `tenant` through the API; returns the licence's code. */
export async function publishLicence(
  service: ServiceProcess,
  token: string,
  tenant: string,
  code = uniq('LIC'),
): Promise<string> {
  const res = await fetch(`${service.url}/admin/licence-events`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
    body: JSON.stringify({ eventType: 'LICENCE_CREATED_SUCCESS', tenant, licence: licence({ code }) }),
  });
  if (res.status !== 202) throw new Error(`publish failed: ${res.status} ${await res.text()}`);
  return code;
}

/** Sends `signal` and resolves with how long the process took to end and its exit code; gives up after `limitMs`. */
export async function timeToExit(
  service: ServiceProcess,
  signal: NodeJS.Signals,
  limitMs: number,
): Promise<{ ms: number; code: number | null | 'still running' }> {
  const started = Date.now();
  let timer: NodeJS.Timeout | undefined;
  const code = await Promise.race([
    service.stop(signal),
    new Promise<'still running'>((resolve) => (timer = setTimeout(() => resolve('still running'), limitMs))),
  ]);
  clearTimeout(timer);
  return { ms: Date.now() - started, code };
}

export interface RecordRow {
  status: string;
  httpStatusCode: number | null;
  errorMessage: string | null;
  responseBody: string | null;
}

/** The records of one subscription as the history table holds them, by licence code. */
export async function recordsByCode(url: string, subscriptionId: number): Promise<Map<string, RecordRow[]>> {
  const rows = await sql<RecordRow & { code: string }>(
    url,
    `SELECT e.payload->'licence'->>'code' AS code, d.status, d.http_status_code AS "httpStatusCode",
            d.error_message AS "errorMessage", d.response_body AS "responseBody"
     FROM webhook_deliveries d JOIN webhook_events e ON e.id = d.event_id
     WHERE d.subscription_id = $1 ORDER BY d.id`,
    [subscriptionId],
  );
  const byCode = new Map<string, RecordRow[]>();
  for (const { code, ...record } of rows) byCode.set(code, [...(byCode.get(code) ?? []), record]);
  return byCode;
}
