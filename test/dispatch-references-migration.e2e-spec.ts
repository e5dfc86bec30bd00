import type { DataSource } from 'typeorm';
import { runMigrations } from '../src/database/migrate';
import { createDatabaseAtMigration } from './support/database';

const MIGRATION = 'DispatchReferencesByStatements1764900000000';
const KEYS = `SELECT conname, confdeltype FROM pg_constraint
              WHERE contype = 'f' AND conrelid::regclass::text IN ('webhook_jobs', 'webhook_deliveries') ORDER BY 1`;
const TRIGGERS = `SELECT tgname FROM pg_trigger WHERE tgname LIKE '%deleted_clear_dispatch' ORDER BY 1`;

describe('migration DispatchReferencesByStatements', () => {
  let ds: DataSource;
  let drop: () => Promise<void>;

  beforeAll(async () => {
    ({ ds, drop } = await createDatabaseAtMigration('migr', MIGRATION));
  });
  afterAll(async () => {
    await drop?.();
  });

  const subscription = async (tenant: string): Promise<number> =>
    (
      await ds.query(
        `INSERT INTO subscriptions (tenant, name, url, events)
         VALUES ($1, 'hook', 'https://example.com/hook', '{LICENCE_CREATED_SUCCESS}') RETURNING id`,
        [tenant],
      )
    )[0].id;
  const event = async (tenant: string): Promise<string> =>
    (
      await ds.query(
        `INSERT INTO webhook_events (event_type, tenant, occurred_at, payload)
         VALUES ('LICENCE_CREATED_SUCCESS', $1, now(), '{}') RETURNING id`,
        [tenant],
      )
    )[0].id;
  /** A job and a delivery record of the event for the subscription. */
  const jobAndRecord = async (eventId: string, subscriptionId: number) => {
    await ds.query(`INSERT INTO webhook_jobs (event_id, subscription_id) VALUES ($1, $2)`, [
      eventId,
      subscriptionId,
    ]);
    await ds.query(
      `INSERT INTO webhook_deliveries (event_id, subscription_id, event_type, status, sent_at)
       VALUES ($1, $2, 'LICENCE_CREATED_SUCCESS', 'SUCCESS', now())`,
      [eventId, subscriptionId],
    );
  };
  /** The subscriptions and events the jobs and records left refer to. */
  const left = async () => ({
    jobs: await ds.query(
      `SELECT event_id::int AS "event", subscription_id AS "subscription" FROM webhook_jobs ORDER BY 1, 2`,
    ),
    records: await ds.query(
      `SELECT event_id::int AS "event", subscription_id AS "subscription" FROM webhook_deliveries ORDER BY 1, 2`,
    ),
  });

  beforeEach(async () => {
    await ds.query(`DELETE FROM subscriptions`);
    await ds.query(`DELETE FROM webhook_events`);
  });

  it('replaces the four foreign keys by the delete triggers, reverts to the keys and applies again', async () => {
    await expect(ds.query(KEYS)).resolves.toEqual([]);
    await expect(ds.query(TRIGGERS)).resolves.toEqual([
      { tgname: 'TRG_subscriptions_deleted_clear_dispatch' },
      { tgname: 'TRG_webhook_events_deleted_clear_dispatch' },
    ]);

    await ds.undoLastMigration({ transaction: 'each' });
    // 'c': ON DELETE CASCADE, as migration CreateDispatcher made them.
    await expect(ds.query(KEYS)).resolves.toEqual([
      { conname: 'FK_webhook_deliveries_event', confdeltype: 'c' },
      { conname: 'FK_webhook_deliveries_subscription', confdeltype: 'c' },
      { conname: 'FK_webhook_jobs_event', confdeltype: 'c' },
      { conname: 'FK_webhook_jobs_subscription', confdeltype: 'c' },
    ]);
    await expect(ds.query(TRIGGERS)).resolves.toEqual([]);

    expect((await runMigrations(ds))[0]).toBe(MIGRATION);
    await expect(ds.query(KEYS)).resolves.toEqual([]);
  });

  it("takes a deleted subscription's jobs and records with it, and only its own", async () => {
    const [kept, gone, other] = [await subscription('t'), await subscription('t'), await subscription('u')];
    const [e1, e2] = [await event('t'), await event('u')];
    await jobAndRecord(e1, kept);
    await jobAndRecord(e1, gone);
    await jobAndRecord(e2, other);

    await ds.query(`DELETE FROM subscriptions WHERE id = $1`, [gone]);

    const rows = [
      { event: Number(e1), subscription: kept },
      { event: Number(e2), subscription: other },
    ];
    await expect(left()).resolves.toEqual({ jobs: rows, records: rows });
  });

  it("takes a deleted event's jobs and records with it, and only its own", async () => {
    const s = await subscription('t');
    const [gone, kept] = [await event('t'), await event('t')];
    await jobAndRecord(gone, s);
    await jobAndRecord(kept, s);

    await ds.query(`DELETE FROM webhook_events WHERE id = $1`, [gone]);

    const rows = [{ event: Number(kept), subscription: s }];
    await expect(left()).resolves.toEqual({ jobs: rows, records: rows });
  });

  it('leaves no job of a subscription deleted while a publish held it, in either order', async () => {
    // The publish's lock (FOR KEY SHARE, as ENQUEUE_SQL takes it) against a concurrent DELETE.
    const publish = `INSERT INTO webhook_jobs (event_id, subscription_id)
                     SELECT $1, s.id FROM subscriptions s WHERE s.id = $2 FOR KEY SHARE OF s`;
    for (const deleteFirst of [false, true]) {
      const s = await subscription('t');
      const e = await event('t');
      const [first, second] = [ds.createQueryRunner(), ds.createQueryRunner()];
      try {
        await first.startTransaction();
        if (deleteFirst) await first.query(`DELETE FROM subscriptions WHERE id = $1`, [s]);
        else await first.query(publish, [e, s]);
        // The other waits for `first`'s lock on the subscription row.
        const waiting = deleteFirst
          ? second.query(publish, [e, s])
          : second.query(`DELETE FROM subscriptions WHERE id = $1`, [s]);
        await expect(
          Promise.race([waiting.then(() => 'done'), new Promise((r) => setTimeout(() => r('waiting'), 300))]),
        ).resolves.toBe('waiting');
        await first.commitTransaction();
        await waiting;
      } finally {
        await first.release();
        await second.release();
      }
      await expect(left()).resolves.toEqual({ jobs: [], records: [] });
    }
  });
});
