import type { DataSource } from 'typeorm';
import { runMigrations } from '../src/database/migrate';
import { createEmptyDatabase } from './support/database';

const OURS = 'DeliveryTriggersAndDetails1764400200000';

describe('migration DeliveryTriggersAndDetails', () => {
  let ds: DataSource;
  let drop: () => Promise<void>;

  beforeAll(async () => {
    // An empty database (not the migrated template), dropped afterwards (also by global teardown).
    ({ ds, drop } = await createEmptyDatabase('migt'));
  });
  afterAll(async () => {
    await drop?.();
  });

  const columns = async () =>
    (
      await ds.query(
        `SELECT table_name || '.' || column_name || ' ' || data_type || ' ' || is_nullable ||
                coalesce(' ' || column_default, '') AS c
         FROM information_schema.columns
         WHERE table_name IN ('webhook_jobs', 'webhook_deliveries')
           AND column_name IN ('trigger', 'duration_ms', 'response_body')
         ORDER BY 1`,
      )
    ).map((r: { c: string }) => r.c);
  const index = async () =>
    (
      await ds.query(
        `SELECT indexdef FROM pg_indexes WHERE indexname = 'UQ_webhook_jobs_event_subscription_again'`,
      )
    ).map((r: { indexdef: string }) => r.indexdef.replace(/^.* USING /, ''));
  const undoThrough = async (migration: string) => {
    for (;;) {
      const [last] = await ds.query(`SELECT name FROM migrations ORDER BY id DESC LIMIT 1`);
      await ds.undoLastMigration({ transaction: 'each' });
      if (last.name === migration) return;
    }
  };

  it('adds the trigger, duration and answer columns and the partial unique index; reverts cleanly and applies again', async () => {
    const applied = await runMigrations(ds);
    expect(applied).toContain(OURS);
    await expect(columns()).resolves.toEqual([
      'webhook_deliveries.duration_ms integer YES',
      'webhook_deliveries.response_body text YES',
      "webhook_deliveries.trigger character varying NO 'EVENT'::character varying",
      "webhook_jobs.trigger character varying NO 'EVENT'::character varying",
    ]);
    await expect(index()).resolves.toEqual([
      `btree (event_id, subscription_id) WHERE ((trigger)::text <> 'EVENT'::text)`,
    ]);

    await undoThrough(OURS);
    await expect(columns()).resolves.toEqual([]);
    await expect(index()).resolves.toEqual([]);
    // Rows written before the migration get EVENT.
    const [sub] = await ds.query(
      `INSERT INTO subscriptions (tenant, name, url, events) VALUES ('t', 'n', 'https://x.example', '{LICENCE_CREATED_SUCCESS}') RETURNING id`,
    );
    const [event] = await ds.query(
      `INSERT INTO webhook_events (event_type, tenant, occurred_at, payload)
       VALUES ('LICENCE_CREATED_SUCCESS', 't', now(), '{}') RETURNING id`,
    );
    await ds.query(`INSERT INTO webhook_jobs (event_id, subscription_id) VALUES ($1, $2)`, [
      event.id,
      sub.id,
    ]);
    await ds.query(
      `INSERT INTO webhook_deliveries (event_id, subscription_id, event_type, status, sent_at)
       VALUES ($1, $2, 'LICENCE_CREATED_SUCCESS', 'SUCCESS', now())`,
      [event.id, sub.id],
    );

    await expect(runMigrations(ds)).resolves.toEqual(applied.slice(applied.indexOf(OURS)));
    await expect(ds.query(`SELECT trigger FROM webhook_jobs`)).resolves.toEqual([{ trigger: 'EVENT' }]);
    await expect(
      ds.query(`SELECT trigger, duration_ms, response_body FROM webhook_deliveries`),
    ).resolves.toEqual([{ trigger: 'EVENT', duration_ms: null, response_body: null }]);
    // One pending resend/recover/test job per event and subscription.
    await ds.query(
      `INSERT INTO webhook_jobs (event_id, subscription_id, trigger) VALUES ($1, $2, 'RESEND')`,
      [event.id, sub.id],
    );
    await expect(
      ds.query(`INSERT INTO webhook_jobs (event_id, subscription_id, trigger) VALUES ($1, $2, 'RECOVER')`, [
        event.id,
        sub.id,
      ]),
    ).rejects.toThrow(/UQ_webhook_jobs_event_subscription_again/);
    await expect(
      ds.query(`INSERT INTO webhook_jobs (event_id, subscription_id, trigger) VALUES ($1, $2, 'LATER')`, [
        event.id,
        sub.id,
      ]),
    ).rejects.toThrow(/CHK_delivery_trigger/); // the domain's check since migration ColumnChecksAsDomains
  });
});
