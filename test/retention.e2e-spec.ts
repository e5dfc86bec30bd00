import pg from 'pg';
import { RETENTION_LOCK, RetentionService } from '../src/retention/retention.service';
import { createSubscription } from './support/dispatcher';
import { startTestApp, TestApp, uniq } from './support/test-app';

const DAY = "interval '1 day'";

describe('Retention (contract section 8): RETENTION_DAYS, default 30', () => {
  let t: TestApp;
  let subscriptionId: number;

  beforeAll(async () => {
    t = await startTestApp();
    subscriptionId = (
      await createSubscription(t, { tenant: uniq('tenant'), url: 'https://127.0.0.1:9/hook' })
    ).id;
  });
  afterAll(async () => {
    await t?.close();
  });

  const retention = () => t.app.get(RetentionService);

  /** Events published `ageDays` ago (`count` of them); returns their ids. */
  const events = async (ageDays: number, count = 1): Promise<string[]> =>
    (
      await t.dataSource.query(
        `INSERT INTO webhook_events (event_type, tenant, occurred_at, payload, created_at)
         SELECT 'LICENCE_CREATED_SUCCESS', 'retention', now() - $1 * ${DAY}, '{}', now() - $1 * ${DAY}
         FROM generate_series(1, $2) RETURNING id`,
        [ageDays, count],
      )
    ).map((r: { id: string }) => r.id);
  /** One delivery record per event, attempted `ageDays` ago; returns their ids. */
  const records = async (eventIds: string[], ageDays: number): Promise<string[]> =>
    (
      await t.dataSource.query(
        `INSERT INTO webhook_deliveries (event_id, subscription_id, event_type, status, sent_at, created_at)
         SELECT e, $2, 'LICENCE_CREATED_SUCCESS', 'SUCCESS', now() - $3 * ${DAY}, now() - $3 * ${DAY}
         FROM unnest($1::bigint[]) AS e RETURNING id`,
        [eventIds, subscriptionId, ageDays],
      )
    ).map((r: { id: string }) => r.id);
  /** A pending job, leased for an hour by another instance, so no worker here takes it. */
  const pendingJob = async (eventId: string): Promise<string> =>
    (
      await t.dataSource.query(
        `INSERT INTO webhook_jobs (event_id, subscription_id, lease_until, leased_by)
         VALUES ($1, $2, now() + interval '1 hour', 'another-instance') RETURNING id`,
        [eventId, subscriptionId],
      )
    )[0].id;
  const existing = async (table: string, ids: string[]): Promise<string[]> =>
    (
      await t.dataSource.query(`SELECT id FROM ${table} WHERE id = ANY ($1::bigint[]) ORDER BY id`, [ids])
    ).map((r: { id: string }) => r.id);
  // DELETE, not TRUNCATE: TRUNCATE's exclusive table locks can deadlock with the running app's
  // claim queries, which lock the same tables in another order.
  const deleteAll = () =>
    t.dataSource.query(
      `DELETE FROM webhook_jobs; DELETE FROM webhook_deliveries; DELETE FROM webhook_events`,
    );

  it('deletes old events and records in batches, keeps recent ones, events with a pending job and events a record still needs', async () => {
    await deleteAll();
    // In the order the service writes them: oldest first.
    const [oldEvent] = await events(40);
    const [oldRecord] = await records([oldEvent], 40);
    // More than two batches of 1,000.
    const bulkEvents = await events(35, 2500);
    const bulkRecords = await records(bulkEvents, 35);
    const [pendingEvent] = await events(40);
    const job = await pendingJob(pendingEvent);
    const [resentEvent] = await events(31);
    const [nearlyOldEvent] = await events(29);
    const [recentEvent] = await events(1);
    const recentRecords = await records([resentEvent, nearlyOldEvent, recentEvent], 1);

    await expect(retention().runOnce()).resolves.toEqual({ ran: true, deliveries: 2501, events: 2501 });

    await expect(existing('webhook_deliveries', [oldRecord, ...bulkRecords])).resolves.toEqual([]);
    await expect(existing('webhook_deliveries', recentRecords)).resolves.toEqual(recentRecords);
    await expect(existing('webhook_events', [oldEvent, ...bulkEvents])).resolves.toEqual([]);
    // Kept: a pending job's event (and the job), the event of a recent record (a resend), recent events.
    await expect(
      existing('webhook_events', [pendingEvent, resentEvent, nearlyOldEvent, recentEvent]),
    ).resolves.toEqual([pendingEvent, resentEvent, nearlyOldEvent, recentEvent]);
    await expect(existing('webhook_jobs', [job])).resolves.toEqual([job]);

    // Nothing more to do.
    await expect(retention().runOnce()).resolves.toEqual({ ran: true, deliveries: 0, events: 0 });
  });

  it('does not run while another instance holds the lock', async () => {
    await deleteAll();
    const [oldEvent] = await events(40);
    const [oldRecord] = await records([oldEvent], 40);
    const other = new pg.Client({ connectionString: t.databaseUrl });
    await other.connect();
    try {
      await other.query('SELECT pg_advisory_lock($1)', [RETENTION_LOCK]);
      await expect(retention().runOnce()).resolves.toEqual({ ran: false });
      await expect(existing('webhook_deliveries', [oldRecord])).resolves.toEqual([oldRecord]);
      await expect(existing('webhook_events', [oldEvent])).resolves.toEqual([oldEvent]);
      await other.query('SELECT pg_advisory_unlock($1)', [RETENTION_LOCK]);
      await expect(retention().runOnce()).resolves.toEqual({ ran: true, deliveries: 1, events: 1 });
    } finally {
      await other.end();
    }
  });

  it('runs on one instance at a time: a second instance started during a run skips it', async () => {
    await deleteAll();
    const [oldEvent] = await events(40);
    const [oldRecord] = await records([oldEvent], 40);
    const second = await startTestApp({}, { databaseUrl: t.databaseUrl });
    const blocker = new pg.Client({ connectionString: t.databaseUrl });
    await blocker.connect();
    try {
      // The first instance's run takes the lock, then waits on this row lock in its first delete.
      await blocker.query('BEGIN');
      await blocker.query('SELECT id FROM webhook_deliveries WHERE id = $1 FOR UPDATE', [oldRecord]);
      const first = retention().runOnce();
      await waitUntil(async () => {
        const { rows } = await blocker.query(
          `SELECT count(*)::int AS n FROM pg_locks WHERE locktype = 'advisory' AND objid = $1 AND granted`,
          [RETENTION_LOCK],
        );
        return rows[0].n === 1;
      });
      await expect(second.app.get(RetentionService).runOnce()).resolves.toEqual({ ran: false });
      await blocker.query('COMMIT');
      await expect(first).resolves.toEqual({ ran: true, deliveries: 1, events: 1 });
    } finally {
      await blocker.end();
      await second.close();
    }
  });
});

async function waitUntil(condition: () => Promise<boolean>, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}
