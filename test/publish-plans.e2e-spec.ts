import { randomBytes } from 'node:crypto';
import { DataSource } from 'typeorm';
import { dataSourceOptions } from '../src/database/data-source.options';
import { Postgres } from '../src/database/postgres';
import { StoredEvent, WebhookEventsRepository } from '../src/dispatcher/webhook-events.repository';
import { licence } from './support/dispatcher';
import { startTestApp, TestApp, uniq } from './support/test-app';

/** Enough publishes of each statement for PostgreSQL to choose between custom and generic plans (5 custom first). */
const PUBLISHES = 10;
/** A publish leasing its jobs to an instance (WebhookWorker.leaseForPublish). */
const LEASE = { instanceId: 'plans', leaseMs: 30_000, most: 100, skipSubscriptions: [], skipHosts: [] };

/**
 * The publish's named statements (webhook_enqueue, webhook_enqueue_once and their leasing forms) keep one plan for every
 * tenant: with one tenant holding nearly all subscriptions, a small tenant's publishes still reuse
 * the generic plan instead of being planned again each time (ENQUEUE_SQL).
 */
describe('Publish statements with one tenant holding most subscriptions', () => {
  let t: TestApp;
  /** One connection to the app's database: the statements it prepares are the ones the test reads back. */
  let single: DataSource;
  let events: WebhookEventsRepository;

  beforeAll(async () => {
    t = await startTestApp();
    await t.dataSource.query(
      `INSERT INTO subscriptions (tenant, active, name, url, events)
       SELECT $1, true, 'Subscription ' || g, 'https://example.com/hooks/' || g, '{LICENCE_CREATED_SUCCESS}'
       FROM generate_series(1, 20000) g`,
      [uniq('big')],
    );
    await t.dataSource.query('ANALYZE subscriptions');
    single = new DataSource(dataSourceOptions(t.databaseUrl, 1));
    await single.initialize();
    events = new WebhookEventsRepository(single, new Postgres(single));
  });
  afterAll(async () => {
    await single?.destroy();
    await t?.close();
  });

  it("reuses the generic plan for a small tenant's publishes, with and without keys", async () => {
    const event = (): StoredEvent => ({
      eventType: 'LICENCE_CREATED_SUCCESS',
      tenant: 'small',
      timestamp: new Date().toISOString(),
      payload: JSON.stringify(licence()),
      traceContext: null,
    });
    for (let i = 0; i < PUBLISHES; i++) {
      await expect(events.insertWithJobs(event())).resolves.toMatchObject({ matched: 0 });
      await expect(events.insertKeyed(event(), uniq('key'), randomBytes(32))).resolves.toMatchObject({
        matched: 0,
        replayed: false,
      });
      await expect(events.insertLeasing(event(), LEASE)).resolves.toMatchObject({ matched: 0, leased: [] });
      await expect(
        events.insertKeyed(event(), uniq('key'), randomBytes(32), undefined, LEASE),
      ).resolves.toMatchObject({ matched: 0, replayed: false, leased: [] });
    }
    const plans: Array<{ name: string; generic: number; custom: number }> = await single.query(
      `SELECT name, generic_plans::int AS generic, custom_plans::int AS custom FROM pg_prepared_statements
       WHERE name LIKE 'webhook_enqueue%' ORDER BY name`,
    );
    // PostgreSQL plans the first five executions for their values, then keeps the generic plan
    // unless it looks costlier than those: every later execution is generic.
    expect(plans).toEqual([
      { name: 'webhook_enqueue', generic: PUBLISHES - 5, custom: 5 },
      { name: 'webhook_enqueue_leasing', generic: PUBLISHES - 5, custom: 5 },
      { name: 'webhook_enqueue_once', generic: PUBLISHES - 5, custom: 5 },
      { name: 'webhook_enqueue_once_leasing', generic: PUBLISHES - 5, custom: 5 },
    ]);
  });
});
