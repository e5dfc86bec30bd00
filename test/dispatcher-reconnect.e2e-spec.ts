import pg from 'pg';
import { WebhookEvent } from '../src/common/reference/enums';
import { LicenceCreatedSuccessEvent } from '../src/licence-events/licence-created-success.event';
import { LicenceEventPublisher } from '../src/dispatcher/licence-event.publisher';
import { WebhookWorker } from '../src/dispatcher/webhook-worker.service';
import {
  createSubscription,
  licence,
  sleep,
  startDispatcherApp,
  waitForDeliveries,
} from './support/dispatcher';
import { Receiver } from './support/receiver';
import { testCa } from './support/test-ca';
import type { TestApp } from './support/test-app';
import { uniq } from './support/test-app';

/** The worker's connections cut by the server (pg_terminate_backend): deliveries resume, no restart. */
describe('Dispatcher: connections terminated by the database server', () => {
  let t: TestApp;
  let hook: Receiver | undefined;
  let admin: pg.Client;

  beforeAll(async () => {
    t = await startDispatcherApp();
    admin = new pg.Client({ connectionString: t.databaseUrl });
    await admin.connect();
  });
  afterAll(async () => {
    await admin?.end();
    await hook?.close();
    await t?.close();
  });

  /** Backends of the LISTEN connection. */
  const listening = async () =>
    (
      await admin.query(
        `SELECT pid FROM pg_stat_activity
         WHERE datname = current_database() AND query LIKE 'LISTEN webhook_jobs%'`,
      )
    ).rows.map((r: { pid: number }) => r.pid);

  it('claims, records and listens again after every connection of the service was terminated', async () => {
    hook = await Receiver.start(testCa().server, { status: 200 });
    const tenant = uniq('tenant');
    const sub = await createSubscription(t, { tenant, url: hook.url() });
    const publish = () =>
      t.app
        .get(LicenceEventPublisher)
        .emit(
          WebhookEvent.LICENCE_CREATED_SUCCESS,
          new LicenceCreatedSuccessEvent({ tenant, licence: licence() }),
        );
    await publish();
    await waitForDeliveries(t.dataSource, sub.id, 1);
    await expect(listening()).resolves.toHaveLength(1);

    for (let round = 0; round < 2; round++) {
      const [before] = await listening();
      await admin.query(
        `SELECT pg_terminate_backend(pid) FROM pg_stat_activity
         WHERE datname = current_database() AND pid <> pg_backend_pid()`,
      );
      const reconnected = async () => {
        const pids = await listening();
        return pids.length === 1 && pids[0] !== before;
      };
      for (let i = 0; i < 300 && !(await reconnected()); i++) await sleep(50);
      await expect(reconnected()).resolves.toBe(true);
      // The first statements on the pool may meet a terminated connection; the publisher's caller
      // gets that error, and the worker retries.
      for (let i = 0; i < 20; i++) {
        try {
          await publish();
          break;
        } catch {
          await sleep(100);
        }
      }
      await waitForDeliveries(t.dataSource, sub.id, 2 + round);
    }
    // A look inside (production code has no getter for it): claiming again, not paused after failures.
    expect(['WAITING', 'CLAIMING']).toContain(t.app.get(WebhookWorker)['state']);
  }, 30_000);
});
