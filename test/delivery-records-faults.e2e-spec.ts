import { randomBytes } from 'node:crypto';
import { gzipSync } from 'node:zlib';
import pg from 'pg';
import { UNRECORDABLE_OUTCOME } from '../src/dispatcher/completion-writer';
import {
  ChildServices,
  insertSubscription,
  loginAs,
  publishLicence,
  recordsByCode,
  sql,
  timeToExit,
  until,
} from './support/child-service';
import { sleep } from './support/dispatcher';
import type { Behaviour } from './support/receiver';
import { testCa } from './support/test-ca';
import { uniq } from './support/test-app';

const ADMIN = { email: 'admin@example.com', password: 'admin-password-1' };
const SECRETS_KEY = randomBytes(32).toString('base64');
const GRACE_MS = 3000;
/** Contract section 8, "Shutdown under faults": the process ends within its grace period plus 5 s. */
const EXIT_WITHIN_MS = GRACE_MS + 5000;
/** Contract section 8, "One bad record": every other delivery is recorded within 10 s. */
const RECORDED_WITHIN_MS = 10_000;

/** Answers each request by its licence code: `answers[code]` bytes (with headers), else `ok`. */
function answerByCode(
  answers: Record<string, { body: Buffer; headers?: Record<string, string> }>,
): Behaviour {
  return (_req, res, receipt) => {
    const answer = answers[receipt.body.licence?.code as string];
    res.writeHead(200, { 'content-type': 'text/plain', ...answer?.headers });
    res.end(answer?.body ?? 'ok');
  };
}

describe('Delivery records under faults (contract section 8, bulkheads)', () => {
  const fixture = ChildServices.forSpec();
  const database = () => fixture.database();
  const receiver = (behaviour?: Behaviour) => fixture.receiver(behaviour);
  const start = (databaseUrl: string) =>
    fixture.start({
      DATABASE_URL: databaseUrl,
      NODE_EXTRA_CA_CERTS: testCa().certFile,
      JWT_SECRET: randomBytes(32).toString('base64url'),
      SECRETS_KEY,
      WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true',
      WEBHOOK_TIMEOUT_MS: '3000',
      SHUTDOWN_GRACE_MS: String(GRACE_MS),
      BOOTSTRAP_ADMIN_EMAIL: ADMIN.email,
      BOOTSTRAP_ADMIN_PASSWORD: ADMIN.password,
    });
  const jobsLeft = async (url: string) =>
    (await sql<{ n: number }>(url, `SELECT count(*)::int AS n FROM webhook_jobs`))[0].n;

  it('records NUL, invalid UTF-8 and gzip answers safely, holds back no tenant, and exits in time', async () => {
    const url = await database();
    const gzipped = gzipSync(JSON.stringify({ ok: true, padding: 'x'.repeat(200) }));
    const [nul, invalid, gzip] = [uniq('NUL'), uniq('INVALID'), uniq('GZIP')];
    const hookA = await receiver(
      answerByCode({
        [nul]: { body: Buffer.from('ok\0poison') },
        [invalid]: { body: Buffer.from([0x6f, 0x6b, 0xff, 0xfe, 0x80, 0x21]) },
        [gzip]: {
          body: gzipped,
          headers: { 'content-type': 'application/json', 'content-encoding': 'gzip' },
        },
      }),
    );
    const hookB = await receiver();
    const [tenantA, tenantB] = [uniq('tenant-a'), uniq('tenant-b')];
    // A partner's custom Accept-Encoding (set before the API refused the name) must not reach the receiver.
    const subA = await insertSubscription(url, SECRETS_KEY, {
      tenant: tenantA,
      receiver: hookA,
      header: ['Accept-Encoding', 'gzip'],
    });
    const subB = await insertSubscription(url, SECRETS_KEY, { tenant: tenantB, receiver: hookB });
    const service = await start(url);
    const token = await loginAs(service, ADMIN);

    for (const code of [nul, invalid, gzip]) await publishLicence(service, token, tenantA, code);
    await hookA.waitFor(3);
    const published = Date.now();
    const codesB: string[] = [];
    for (let i = 0; i < 5; i++) codesB.push(await publishLicence(service, token, tenantB));
    const laterA = await publishLicence(service, token, tenantA);

    await until(
      "tenant B's deliveries and A's later one recorded",
      async () => (await recordsByCode(url, subB)).size === 5 && (await recordsByCode(url, subA)).has(laterA),
      RECORDED_WITHIN_MS,
    );
    console.log(`recorded ${Date.now() - published} ms after publishing`);
    const recordsA = await recordsByCode(url, subA);
    expect(recordsA.get(nul)).toEqual([
      { status: 'SUCCESS', httpStatusCode: 200, errorMessage: null, responseBody: 'ok\uFFFDpoison' },
    ]);
    expect(recordsA.get(invalid)?.map((r) => r.responseBody)).toEqual(['ok\uFFFD\uFFFD\uFFFD!']);
    // The compressed bytes as they came, each NUL and invalid sequence replaced: never inflated.
    const gzipBody = recordsA.get(gzip)?.[0].responseBody;
    expect(gzipBody).toBe(gzipped.toString('utf8').replaceAll('\0', '\uFFFD'));
    expect(gzipBody).not.toContain('padding');
    expect(recordsA.get(laterA)?.map((r) => r.responseBody)).toEqual(['ok']);
    expect(hookA.receipts.map((r) => r.headers['accept-encoding'])).toEqual(Array(4).fill('identity'));
    expect(hookA.receipts).toHaveLength(4); // each delivered once
    await expect(jobsLeft(url)).resolves.toBe(0);

    const exit = await timeToExit(service, 'SIGTERM', EXIT_WITHIN_MS + 5000);
    expect(exit.code).toBe(0);
    expect(exit.ms).toBeLessThan(EXIT_WITHIN_MS);
  }, 120_000);

  it('sets aside a record PostgreSQL refuses: a generic FAILED record, or its job dropped; no endless retry', async () => {
    const url = await database();
    const refused = uniq('REFUSED');
    const hookA = await receiver(answerByCode({ [refused]: { body: Buffer.from('refuse-this-record') } }));
    const [hookB, hookC] = [await receiver(), await receiver()];
    const [tenantA, tenantB, tenantC] = [uniq('tenant-a'), uniq('tenant-b'), uniq('tenant-c')];
    const subA = await insertSubscription(url, SECRETS_KEY, { tenant: tenantA, receiver: hookA });
    const subB = await insertSubscription(url, SECRETS_KEY, { tenant: tenantB, receiver: hookB });
    const subC = await insertSubscription(url, SECRETS_KEY, { tenant: tenantC, receiver: hookC });
    // The refusals are counted in a sequence: it advances even when the statement is rolled back.
    await sql(url, `CREATE SEQUENCE test_refusals`);
    await sql(
      url,
      `CREATE FUNCTION test_refuse_record() RETURNS trigger LANGUAGE plpgsql AS $$
       BEGIN
         IF NEW.response_body = 'refuse-this-record' OR NEW.subscription_id = ${subC} THEN
           PERFORM nextval('test_refusals');
           RAISE EXCEPTION 'refused by the test' USING ERRCODE = 'check_violation';
         END IF;
         RETURN NEW;
       END $$`,
    );
    await sql(
      url,
      `CREATE TRIGGER test_refuse_record BEFORE INSERT ON webhook_deliveries
       FOR EACH ROW EXECUTE FUNCTION test_refuse_record()`,
    );
    const service = await start(url);
    const token = await loginAs(service, ADMIN);

    await publishLicence(service, token, tenantA, refused);
    const dropped = await publishLicence(service, token, tenantC);
    const published = Date.now();
    const others = [await publishLicence(service, token, tenantA)];
    for (let i = 0; i < 5; i++) others.push(await publishLicence(service, token, tenantB));

    await until(
      'every job finished',
      async () => (await jobsLeft(url)) === 0 && (await recordsByCode(url, subB)).size === 5,
      RECORDED_WITHIN_MS,
    );
    console.log(`recorded ${Date.now() - published} ms after publishing`);
    const recordsA = await recordsByCode(url, subA);
    expect(recordsA.get(refused)).toEqual([
      { status: 'FAILED', httpStatusCode: null, errorMessage: UNRECORDABLE_OUTCOME, responseBody: null },
    ]);
    expect(recordsA.get(others[0])).toEqual([
      { status: 'SUCCESS', httpStatusCode: 200, errorMessage: null, responseBody: 'ok' },
    ]);
    await expect(recordsByCode(url, subC)).resolves.toEqual(new Map()); // dropped, logged
    expect(hookC.receipts.map((r) => r.body.licence.code)).toEqual([dropped]);

    // Nothing is tried again: the refusals stop, and no receiver hears from a job twice.
    const [{ n: refusals }] = await sql<{ n: number }>(url, `SELECT last_value::int AS n FROM test_refusals`);
    expect(refusals).toBeLessThan(20);
    await sleep(2500);
    await expect(sql(url, `SELECT last_value::int AS n FROM test_refusals`)).resolves.toEqual([
      { n: refusals },
    ]);
    expect(hookA.receipts).toHaveLength(2);
    expect(hookB.receipts).toHaveLength(5);
    expect(hookC.receipts).toHaveLength(1);
    expect(service.output).toContain('recorded as FAILED without its answer');
    expect(service.output).toContain('job dropped without a record');
    expect(service.output).not.toContain('refuse-this-record'); // what a receiver sent is not logged

    await expect(timeToExit(service, 'SIGTERM', EXIT_WITHIN_MS)).resolves.toMatchObject({ code: 0 });
  }, 120_000);

  it('writes the records of deliveries that finish together in one statement (the happy path pays nothing)', async () => {
    const url = await database();
    const subscriptions = 8;
    const held: Array<() => void> = [];
    // Every answer at once, when the last request is in: their completions form one batch.
    const hook = await receiver((_req, res) => {
      held.push(() => res.writeHead(200, { 'content-type': 'text/plain' }).end('ok'));
      if (held.length === subscriptions) for (const answer of held) answer();
    });
    const tenant = uniq('tenant');
    const subs: number[] = [];
    for (let i = 0; i < subscriptions; i++)
      subs.push(await insertSubscription(url, SECRETS_KEY, { tenant, receiver: hook }));
    await sql(url, `CREATE SEQUENCE test_record_statements`);
    await sql(
      url,
      `CREATE FUNCTION test_count_statement() RETURNS trigger LANGUAGE plpgsql AS $$
       BEGIN PERFORM nextval('test_record_statements'); RETURN NULL; END $$`,
    );
    await sql(
      url,
      `CREATE TRIGGER test_count_statement AFTER INSERT ON webhook_deliveries
       FOR EACH STATEMENT EXECUTE FUNCTION test_count_statement()`,
    );
    const service = await start(url);
    await publishLicence(service, await loginAs(service, ADMIN), tenant);

    await until(
      'every record',
      async () => (await sql(url, `SELECT 1 FROM webhook_deliveries`)).length === subscriptions,
      RECORDED_WITHIN_MS,
    );
    const [{ n }] = await sql<{ n: number }>(url, `SELECT last_value::int AS n FROM test_record_statements`);
    expect(n).toBeLessThanOrEqual(2); // one batch; two if the answers straddle a flush
    await expect(jobsLeft(url)).resolves.toBe(0);
    await expect(timeToExit(service, 'SIGTERM', EXIT_WITHIN_MS)).resolves.toMatchObject({ code: 0 });
  }, 120_000);

  // The history table locked: the records wait, and shutdown stops waiting for them (exit 0). The
  // outbox locked: claims, records and the release all wait, and the process ends regardless (exit 1).
  it.each([
    ['webhook_deliveries', 0],
    ['webhook_jobs', 1],
  ])(
    'exits within the grace period plus 5 s while %s is locked, and loses nothing',
    async (table, exitCode) => {
      const url = await database();
      const hook = await receiver();
      const tenant = uniq('tenant');
      const sub = await insertSubscription(url, SECRETS_KEY, { tenant, receiver: hook });
      const service = await start(url);
      const token = await loginAs(service, ADMIN);
      await publishLicence(service, token, tenant);
      await until(
        'the first record',
        async () => (await recordsByCode(url, sub)).size === 1,
        RECORDED_WITHIN_MS,
      );

      // The answers come once the lock is held: their records wait for it.
      hook.behaviour = { status: 200, delayMs: 1500 };
      const codes: string[] = [];
      for (let i = 0; i < 3; i++) codes.push(await publishLicence(service, token, tenant));
      await hook.waitFor(4);
      const locker = new pg.Client({ connectionString: url });
      await locker.connect();
      try {
        await locker.query('BEGIN');
        await locker.query(`LOCK TABLE ${table} IN ACCESS EXCLUSIVE MODE`);
        await sleep(1800); // the answers are in, their records wait for the lock

        const exit = await timeToExit(service, 'SIGTERM', EXIT_WITHIN_MS + 5000);
        console.log(`${table} locked: exit ${exit.code} after ${exit.ms} ms`);
        expect(exit.ms).toBeLessThan(EXIT_WITHIN_MS);
        expect(exit.code).toBe(exitCode);
      } finally {
        await locker.query('ROLLBACK');
        await locker.end();
      }

      // Not recorded, so delivered again by the next instance: at least one record each.
      hook.behaviour = { status: 200 };
      const next = await start(url);
      await until('every job done', async () => (await jobsLeft(url)) === 0, 30_000);
      const records = await recordsByCode(url, sub);
      for (const code of codes) {
        expect({ code, recorded: (records.get(code)?.length ?? 0) >= 1 }).toEqual({ code, recorded: true });
      }
      await expect(timeToExit(next, 'SIGTERM', EXIT_WITHIN_MS)).resolves.toMatchObject({ code: 0 });
    },
    120_000,
  );
});
