import { randomBytes } from 'node:crypto';
import type { DataSource } from 'typeorm';
import { runMigrations } from '../src/database/migrate';
import { createEmptyDatabase, undoMigrationsAfter } from './support/database';

const MIGRATION = 'SubscriptionHealth1764800000000';

describe('migration SubscriptionHealth', () => {
  let ds: DataSource;
  let drop: () => Promise<void>;

  beforeAll(async () => {
    ({ ds, drop } = await createEmptyDatabase('migh'));
  });
  afterAll(async () => {
    await drop?.();
  });

  const at = (second: number) => new Date(Date.UTC(2026, 10, 1, 0, 0, second));

  /** A subscription with records of these outcomes, one second apart; returns its id. */
  const subscriptionWith = async (...outcomes: Array<'SUCCESS' | 'FAILED'>): Promise<number> => {
    const [{ id }] = await ds.query(
      `INSERT INTO subscriptions (tenant, name, url, events)
       VALUES ('t', $1, 'https://example.com/hook', '{LICENCE_CREATED_SUCCESS}') RETURNING id`,
      [`sub-${randomBytes(4).toString('hex')}`],
    );
    const [event] = await ds.query(
      `INSERT INTO webhook_events (event_type, tenant, occurred_at, payload)
       VALUES ('LICENCE_CREATED_SUCCESS', 't', now(), '{}') RETURNING id`,
    );
    for (const [i, status] of outcomes.entries()) {
      await ds.query(
        `INSERT INTO webhook_deliveries (event_id, subscription_id, event_type, status, sent_at)
         VALUES ($1, $2, 'LICENCE_CREATED_SUCCESS', $3, $4)`,
        [event.id, id, status, at(i + 1)],
      );
    }
    return id;
  };

  const healthOf = async (id: number) =>
    (
      await ds.query(
        `SELECT last_attempt_at AS "lastAttemptAt", last_success_at AS "lastSuccessAt",
                failing_since AS "failingSince", consecutive_failures AS "consecutiveFailures"
         FROM subscriptions WHERE id = $1`,
        [id],
      )
    )[0];

  it('sets the health of subscriptions with history from it, reverts cleanly and applies again', async () => {
    const applied = await runMigrations(ds);
    expect(applied).toContain(MIGRATION);
    await undoMigrationsAfter(ds, MIGRATION);
    await ds.undoLastMigration({ transaction: 'each' });
    const columns = `SELECT column_name FROM information_schema.columns
                     WHERE table_name = 'subscriptions' AND column_name = 'consecutive_failures'`;
    await expect(ds.query(columns)).resolves.toEqual([]);

    const failing = await subscriptionWith('FAILED', 'SUCCESS', 'FAILED', 'FAILED');
    const healthy = await subscriptionWith('FAILED', 'SUCCESS');
    const neverOk = await subscriptionWith('FAILED', 'FAILED');
    const fresh = await subscriptionWith();
    await expect(runMigrations(ds)).resolves.toEqual(applied.slice(applied.indexOf(MIGRATION)));

    await expect(healthOf(failing)).resolves.toEqual({
      lastAttemptAt: at(4),
      lastSuccessAt: at(2),
      failingSince: at(3),
      consecutiveFailures: 2,
    });
    await expect(healthOf(healthy)).resolves.toEqual({
      lastAttemptAt: at(2),
      lastSuccessAt: at(2),
      failingSince: null,
      consecutiveFailures: 0,
    });
    await expect(healthOf(neverOk)).resolves.toEqual({
      lastAttemptAt: at(2),
      lastSuccessAt: null,
      failingSince: at(1),
      consecutiveFailures: 2,
    });
    await expect(healthOf(fresh)).resolves.toEqual({
      lastAttemptAt: null,
      lastSuccessAt: null,
      failingSince: null,
      consecutiveFailures: 0,
    });
    // The checks hold: a run of failures has its start.
    await expect(
      ds.query(`UPDATE subscriptions SET failing_since = NULL WHERE id = $1`, [failing]),
    ).rejects.toThrow(/CHK_subscriptions_health/);
  });
});
