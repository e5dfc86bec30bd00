import { DataSource } from 'typeorm';
import { DeliveryStatus, DeliveryTrigger, WebhookEvent } from '../src/common/reference/enums';
import { dataSourceOptions } from '../src/database/data-source.options';
import { OwnPool, Postgres } from '../src/database/postgres';
import { CompletionWriter } from '../src/dispatcher/completion-writer';
import { Completion, completionStatement } from '../src/dispatcher/completion.statement';
import { WebhookJobsRepository } from '../src/dispatcher/webhook-jobs.repository';
import { startTestApp, TestApp, uniq } from './support/test-app';

/** Enough executions for PostgreSQL to choose between custom and generic plans (5 custom first). */
const BATCHES = 10;
/** Jobs waiting in the outbox meanwhile (leased by another instance). */
const OUTBOX_SIZE = 20_000;

interface Plans {
  generic: number;
  custom: number;
}

const PLANS_SQL = `SELECT generic_plans::int AS generic, custom_plans::int AS custom
  FROM pg_prepared_statements WHERE name = 'webhook_complete'`;

/** A subscription of `tenant`'s, straight into the table; its id. */
async function insertSubscription(t: TestApp, tenant: string): Promise<number> {
  const [{ id }] = (await t.dataSource.query(
    `INSERT INTO subscriptions (tenant, name, url, events)
     VALUES ($1, 'Completions', 'https://example.com/hooks', '{LICENCE_CREATED_SUCCESS}') RETURNING id`,
    [tenant],
  )) as Array<{ id: number }>;
  return id;
}

/**
 * `count` events with one job each for the subscription, leased far ahead by another instance so
 * the app's worker leaves them alone; their completions, one per job, each a success.
 */
async function leasedCompletions(
  t: TestApp,
  tenant: string,
  subscriptionId: number,
  count: number,
): Promise<Completion[]> {
  const jobs: Array<{ jobId: string; eventId: string }> = await t.dataSource.query(
    `WITH events AS (
       INSERT INTO webhook_events (event_type, tenant, occurred_at, payload)
       SELECT $1, $2, now(), '{}' FROM generate_series(1, $4::int)
       RETURNING id
     )
     INSERT INTO webhook_jobs (event_id, subscription_id, lease_until, leased_by)
     SELECT id, $3, now() + interval '1 hour', 'another-instance' FROM events
     RETURNING id AS "jobId", event_id AS "eventId"`,
    [WebhookEvent.LICENCE_CREATED_SUCCESS, tenant, subscriptionId, count],
  );
  return jobs.map(({ jobId, eventId }) => ({
    jobId,
    eventId,
    subscriptionId,
    eventType: WebhookEvent.LICENCE_CREATED_SUCCESS,
    tenant,
    status: DeliveryStatus.SUCCESS,
    httpStatusCode: 200,
    errorMessage: null,
    sentAt: new Date(),
    trigger: DeliveryTrigger.EVENT,
    durationMs: 3,
    responseBody: 'ok',
  }));
}

/**
 * The completion statement (completion.statement.ts) at a low delivery rate, where batches hold one
 * record: on a session with PostgreSQL's default plan choice it is planned again on every call;
 * CompletionWriter's own connection (PLANNED_ONCE_SESSION) plans it once.
 */
describe('The completion statement, one record a batch', () => {
  let t: TestApp;
  let tenant: string;
  let subscriptionId: number;

  beforeAll(async () => {
    t = await startTestApp();
    tenant = uniq('plans');
    subscriptionId = await insertSubscription(t, tenant);
    // An outbox of some size, as under load: the plan choice below depends on it.
    await completions(OUTBOX_SIZE);
    await t.dataSource.query('ANALYZE webhook_events, webhook_jobs, subscriptions');
  });
  afterAll(async () => {
    await t?.close();
  });

  const completions = (count: number) => leasedCompletions(t, tenant, subscriptionId, count);

  it("is planned again on every call on a session with PostgreSQL's default plan choice", async () => {
    const single = new DataSource(dataSourceOptions(t.databaseUrl, 1));
    await single.initialize();
    try {
      // As CompletionWriter ran it before it had a connection of its own: by name, on a pool.
      const postgres = new Postgres(single);
      for (const completion of await completions(BATCHES)) {
        const { name, text, values } = completionStatement([completion]);
        await postgres.query(name, text, values);
      }
      const [plans] = (await postgres.query(undefined, PLANS_SQL, [])) as Plans[];
      expect(plans).toEqual({ generic: 0, custom: BATCHES });
    } finally {
      await single.destroy();
    }
  });

  it("is planned once on CompletionWriter's own connection, and writes every record", async () => {
    const writer = new CompletionWriter(t.app.get(Postgres), t.app.get(WebhookJobsRepository));
    try {
      const written = await completions(BATCHES);
      for (const completion of written) {
        writer.add(completion);
        await writer.flush();
      }
      // The writer's pool holds one connection: the statement it prepared is on it.
      const pool = (writer as unknown as { pool: OwnPool }).pool;
      await expect(pool.query('test_completion_plans', PLANS_SQL, [])).resolves.toEqual([
        { generic: BATCHES, custom: 0 },
      ]);
      const jobIds = written.map((c) => c.jobId);
      const [left] = await t.dataSource.query(
        `SELECT (SELECT count(*)::int FROM webhook_jobs WHERE id = ANY ($1::bigint[])) AS jobs,
                (SELECT count(*)::int FROM webhook_deliveries WHERE event_id = ANY ($2::bigint[])) AS records`,
        [jobIds, written.map((c) => c.eventId)],
      );
      expect(left).toEqual({ jobs: 0, records: BATCHES });
    } finally {
      await writer.onApplicationShutdown();
    }
  });
});

/** The completion's columns go to PostgreSQL as array literals (database/array-literal.ts). */
describe("The completion statement's parameters", () => {
  let t: TestApp;

  beforeAll(async () => {
    t = await startTestApp();
  });
  afterAll(async () => {
    await t?.close();
  });

  it('record every text and time as it came, whatever characters the array syntax uses', async () => {
    const tenant = uniq('literal');
    const subscriptionId = await insertSubscription(t, tenant);
    const texts = [
      'plain',
      'two words',
      '{"received": true, "list": [1, 2]}',
      'back\\slash and "quotes"',
      '',
      'NULL',
      'null',
      ' padded\t\n',
      'ünïcödé ✓ 😀',
    ];
    const sentAt = new Date('2026-03-04T05:06:07.089Z');
    const batch = (await leasedCompletions(t, tenant, subscriptionId, texts.length)).map((c, k) => ({
      ...c,
      status: DeliveryStatus.FAILED,
      httpStatusCode: k % 2 === 0 ? 500 : null,
      errorMessage: texts[k],
      sentAt: new Date(sentAt.getTime() + k),
      durationMs: k % 2 === 0 ? k : null,
      responseBody: k === 0 ? null : texts[texts.length - k],
    }));
    const { name, text, values } = completionStatement(batch);
    await t.app.get(Postgres).query(name, text, values);

    const records = (await t.dataSource.query(
      `SELECT event_id AS "eventId", error_message AS "errorMessage", response_body AS "responseBody",
              http_status_code AS "httpStatusCode", duration_ms AS "durationMs", sent_at AS "sentAt"
       FROM webhook_deliveries WHERE subscription_id = $1 ORDER BY event_id`,
      [subscriptionId],
    )) as Array<Record<string, unknown>>;
    expect(records).toEqual(
      batch.map((c) => ({
        eventId: c.eventId,
        errorMessage: c.errorMessage,
        responseBody: c.responseBody,
        httpStatusCode: c.httpStatusCode,
        durationMs: c.durationMs,
        sentAt: c.sentAt,
      })),
    );
  });
});
