import { readFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import pg from 'pg';
import { ConfigService } from '@nestjs/config';
import { EventEmitter2 } from '@nestjs/event-emitter';
import { ValidationFailedException } from '../src/common/errors/validation-failed.exception';
import { DeliveryStatus, WebhookEvent } from '../src/common/reference/enums';
import { LicenceCreatedFailedEvent } from '../src/licence-events/licence-created-failed.event';
import { LicenceCreatedSuccessEvent } from '../src/licence-events/licence-created-success.event';
import { LICENCE_EVENT_CLASSES } from '../src/licence-events/licence-events';
import { LicenceEventPublisher } from '../src/dispatcher/licence-event.publisher';
import { WebhookOutbox } from '../src/dispatcher/webhook-outbox.service';
import { workerSettings } from '../src/dispatcher/worker-settings';
import { Subscription } from '../src/subscriptions/subscription.entity';
import {
  createSubscription,
  deliveriesOf,
  licence,
  pendingJobs,
  sleep,
  startDispatcherApp,
  waitForDeliveries,
} from './support/dispatcher';
import { Behaviour, Receiver } from './support/receiver';
import { testCa } from './support/test-ca';
import type { TestApp, TestUser } from './support/test-app';
import { uniq } from './support/test-app';

const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
const VERSION = JSON.parse(readFileSync(join(__dirname, '../package.json'), 'utf8')).version;
const TIMEOUT_MS = 1500;

/** A port nothing listens on. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

describe('Dispatcher: licence events to webhook deliveries', () => {
  let t: TestApp;
  let admin: TestUser;
  const receivers: Receiver[] = [];
  const ca = testCa();

  const receiver = async (behaviour?: Behaviour, tls = ca.server) => {
    const r = await Receiver.start(tls, behaviour);
    receivers.push(r);
    return r;
  };
  const publish = (body: object) =>
    t.http().post('/admin/licence-events').set('authorization', `Bearer ${admin.token}`).send(body);

  beforeAll(async () => {
    // 4 slots, so at most 1 in flight per receiver: the isolation rule is easy to observe.
    t = await startDispatcherApp({ WEBHOOK_TIMEOUT_MS: String(TIMEOUT_MS), WEBHOOK_CONCURRENCY: '4' });
    admin = await t.createUser({ admin: true });
  });
  afterAll(async () => {
    for (const r of receivers) await r.close();
    await t?.close();
  });

  it('delivers a success event with exactly the payload and headers, and records SUCCESS', async () => {
    const hook = await receiver({ status: 200 });
    const tenant = uniq('tenant');
    const sub = await createSubscription(t, {
      tenant,
      url: hook.url('/hooks/licences?x=1'),
      headerName: 'X-Partner-Secret',
      headerValue: 'shared-secret-value',
    });
    const lic = licence({ name: 'João Conceição Ñandú', pricing: 1234.5 });
    const res = await publish({
      eventType: WebhookEvent.LICENCE_CREATED_SUCCESS,
      tenant,
      licence: lic,
    }).expect(202);
    expect(res.body).toEqual({
      eventId: expect.any(Number),
      eventType: 'LICENCE_CREATED_SUCCESS',
      tenant,
      timestamp: expect.stringMatching(ISO),
      matchedSubscriptions: 1,
    });

    const [receipt] = await hook.waitFor(1);
    expect(receipt.method).toBe('POST');
    expect(receipt.path).toBe('/hooks/licences?x=1');
    expect(Object.keys(receipt.body)).toEqual(['eventType', 'timestamp', 'tenant', 'licence', 'error']);
    expect(receipt.body).toEqual({
      eventType: 'LICENCE_CREATED_SUCCESS',
      timestamp: res.body.timestamp,
      tenant,
      licence: lic,
      error: null,
    });
    expect(Object.keys(receipt.body.licence)).toEqual([
      'code',
      'clientId',
      'planId',
      'name',
      'email',
      'phoneNumber',
      'status',
      'maxRedemptions',
      'pricing',
    ]);
    expect(receipt.headers['content-type']).toBe('application/json');
    expect(receipt.headers['user-agent']).toBe(`partner-integration-service/${VERSION}`);
    expect(receipt.headers['x-partner-secret']).toBe('shared-secret-value');
    expect(receipt.headers['content-length']).toBe(String(Buffer.byteLength(receipt.raw)));
    expect(receipt.headers['accept-encoding']).toBe('identity'); // the answer is recorded raw
    // Nothing else: no Accept, no X-Requested-With or XSRF header, no proxy or
    // forwarding headers.
    expect(Object.keys(receipt.headers).sort()).toEqual([
      'accept-encoding',
      'connection',
      'content-length',
      'content-type',
      'host',
      'user-agent',
      'webhook-id',
      'webhook-signature',
      'webhook-timestamp',
      'x-partner-secret',
    ]);

    const [record] = await waitForDeliveries(t.dataSource, sub.id, 1);
    expect(record).toMatchObject({
      eventId: String(res.body.eventId),
      eventType: 'LICENCE_CREATED_SUCCESS',
      status: DeliveryStatus.SUCCESS,
      httpStatusCode: 200,
      errorMessage: null,
    });
    expect(record.sentAt.getTime()).toBeLessThanOrEqual(record.createdAt.getTime());
    expect(record.sentAt.getTime()).toBeLessThanOrEqual(receipt.receivedAt + 5);
    await expect(pendingJobs(t.dataSource, sub.id)).resolves.toBe(0);
  });

  it('delivers a failure event with licence null and the error object, any 2xx being SUCCESS', async () => {
    const hook = await receiver({ status: 204, body: '' });
    const tenant = uniq('tenant');
    const sub = await createSubscription(t, { tenant, url: hook.url() });
    const error = { message: 'Plan 3 has no seats left', type: 'PlanCapacityExceededException' };
    const res = await publish({ eventType: WebhookEvent.LICENCE_CREATED_FAILED, tenant, error }).expect(202);
    const [receipt] = await hook.waitFor(1);
    expect(receipt.body).toEqual({
      eventType: 'LICENCE_CREATED_FAILED',
      timestamp: res.body.timestamp,
      tenant,
      licence: null,
      error,
    });
    expect(receipt.headers['x-partner-secret']).toBeUndefined();
    const [record] = await waitForDeliveries(t.dataSource, sub.id, 1);
    expect(record).toMatchObject({
      status: 'SUCCESS',
      httpStatusCode: 204,
      eventType: 'LICENCE_CREATED_FAILED',
    });
  });

  it('matches only active subscriptions of the event tenant that list the event type', async () => {
    const hook = await receiver({ status: 200 });
    const tenant = uniq('tenant');
    const match = await createSubscription(t, { tenant, url: hook.url('/match') });
    const onlySuccess = await createSubscription(t, {
      tenant,
      url: hook.url('/only-success'),
      events: [WebhookEvent.LICENCE_CREATED_SUCCESS],
    });
    const inactive = await createSubscription(t, { tenant, url: hook.url('/inactive'), active: false });
    const otherTenant = await createSubscription(t, { tenant: uniq('tenant'), url: hook.url('/other') });
    const onlyFailed = await createSubscription(t, {
      tenant,
      url: hook.url('/only-failed'),
      events: [WebhookEvent.LICENCE_CREATED_FAILED],
    });

    const success = await publish({
      eventType: 'LICENCE_CREATED_SUCCESS',
      tenant,
      licence: licence(),
    }).expect(202);
    expect(success.body.matchedSubscriptions).toBe(2);
    const failed = await publish({
      eventType: 'LICENCE_CREATED_FAILED',
      tenant,
      error: { message: 'boom', type: 'Error' },
    }).expect(202);
    expect(failed.body.matchedSubscriptions).toBe(2);

    await hook.waitFor(4);
    await sleep(500); // anything wrongly matched would arrive meanwhile
    const byPath = (path: string) =>
      hook.receipts.filter((r) => r.path === path).map((r) => r.body.eventType);
    expect(byPath('/match').sort()).toEqual(['LICENCE_CREATED_FAILED', 'LICENCE_CREATED_SUCCESS']);
    expect(byPath('/only-success')).toEqual(['LICENCE_CREATED_SUCCESS']);
    expect(byPath('/only-failed')).toEqual(['LICENCE_CREATED_FAILED']);
    expect(hook.receipts).toHaveLength(4);
    await waitForDeliveries(t.dataSource, match.id, 2);
    await waitForDeliveries(t.dataSource, onlySuccess.id, 1);
    await waitForDeliveries(t.dataSource, onlyFailed.id, 1);
    await expect(deliveriesOf(t.dataSource, inactive.id)).resolves.toHaveLength(0);
    await expect(deliveriesOf(t.dataSource, otherTenant.id)).resolves.toHaveLength(0);

    const nobody = await publish({
      eventType: 'LICENCE_CREATED_SUCCESS',
      tenant: uniq('t'),
      licence: licence(),
    });
    expect(nobody.status).toBe(202);
    expect(nobody.body.matchedSubscriptions).toBe(0);
  });

  it('reuses the connection to a receiver (keep-alive)', async () => {
    const hook = await receiver({ status: 200 });
    const tenant = uniq('tenant');
    const sub = await createSubscription(t, { tenant, url: hook.url() });
    for (let i = 1; i <= 3; i++) {
      await publish({ eventType: 'LICENCE_CREATED_SUCCESS', tenant, licence: licence() }).expect(202);
      await waitForDeliveries(t.dataSource, sub.id, i);
    }
    expect(new Set(hook.receipts.map((r) => r.remotePort)).size).toBe(1);
  });

  it('wakes every instance with NOTIFY webhook_jobs when jobs commit, and not for a rollback', async () => {
    const listener = new pg.Client({ connectionString: t.databaseUrl });
    await listener.connect();
    const heard: number[] = [];
    listener.on('notification', (n) => n.channel === 'webhook_jobs' && heard.push(Date.now()));
    await listener.query('LISTEN webhook_jobs');
    try {
      const hook = await receiver({ status: 200 });
      const tenant = uniq('tenant');
      await createSubscription(t, { tenant, url: hook.url() });
      const outbox = t.app.get(WebhookOutbox);
      await t.dataSource
        .transaction(async (manager) => {
          await outbox.enqueue(new LicenceCreatedSuccessEvent({ tenant, licence: licence() }), manager);
          throw new Error('rolled back');
        })
        .catch(() => undefined);
      await sleep(200);
      expect(heard).toHaveLength(0);
      await outbox.enqueue(new LicenceCreatedSuccessEvent({ tenant: uniq('nobody'), licence: licence() }));
      await sleep(200);
      expect(heard).toHaveLength(0); // no job, no wake-up
      await outbox.enqueue(new LicenceCreatedSuccessEvent({ tenant, licence: licence() }));
      await hook.waitFor(1);
      expect(heard).toHaveLength(1);
    } finally {
      await listener.end();
    }
  });

  it('sends the same bytes, and so the same timestamp, to every subscription', async () => {
    const hook = await receiver({ status: 200 });
    const tenant = uniq('tenant');
    for (const path of ['/a', '/b', '/c']) await createSubscription(t, { tenant, url: hook.url(path) });
    const res = await publish({ eventType: 'LICENCE_CREATED_SUCCESS', tenant, licence: licence() }).expect(
      202,
    );
    expect(res.body.matchedSubscriptions).toBe(3);
    const receipts = await hook.waitFor(3);
    expect(receipts.map((r) => r.path).sort()).toEqual(['/a', '/b', '/c']);
    expect(new Set(receipts.map((r) => r.raw)).size).toBe(1);
    expect(receipts[0].body.timestamp).toBe(res.body.timestamp);
  });

  it('sends on a new connection when the receiver closed the kept-alive one as the request went out', async () => {
    const hook = await receiver({ status: 200 });
    const tenant = uniq('tenant');
    const sub = await createSubscription(t, { tenant, url: hook.url() });
    // The second request on any connection finds it closed, as if the receiver's idle time-out
    // had fired just then; the first request on a connection is answered.
    const served = new WeakMap<object, number>();
    hook.behaviour = (req, res) => {
      const n = (served.get(req.socket) ?? 0) + 1;
      served.set(req.socket, n);
      if (n > 1) req.socket.destroy();
      else res.writeHead(200).end('ok');
    };
    await publish({ eventType: 'LICENCE_CREATED_SUCCESS', tenant, licence: licence() }).expect(202);
    await waitForDeliveries(t.dataSource, sub.id, 1);
    await publish({ eventType: 'LICENCE_CREATED_SUCCESS', tenant, licence: licence() }).expect(202);
    const records = await waitForDeliveries(t.dataSource, sub.id, 2);
    expect(records.map((r) => [r.status, r.httpStatusCode, r.errorMessage])).toEqual([
      ['SUCCESS', 200, null],
      ['SUCCESS', 200, null],
    ]);
    // The second event reached the closing connection, then a new one.
    const ports = hook.receipts.map((r) => r.remotePort);
    expect(ports).toHaveLength(3);
    expect(ports[1]).toBe(ports[0]);
    expect(ports[2]).not.toBe(ports[0]);
  });

  it('records FAILED for 4xx, 5xx, 3xx, time-out, refused and untrusted TLS, and never resends', async () => {
    const tenant = uniq('tenant');
    const redirectTarget = await receiver({ status: 200 });
    const cases = [
      {
        name: '500',
        hook: await receiver({ status: 500 }),
        code: 500,
        message: 'HTTP 500 Internal Server Error',
      },
      { name: '404', hook: await receiver({ status: 404 }), code: 404, message: 'HTTP 404 Not Found' },
      {
        name: '302',
        hook: await receiver({ status: 302, headers: { location: redirectTarget.url() } }),
        code: 302,
        message: 'HTTP 302 Found',
      },
      {
        name: 'hang',
        hook: await receiver({ hang: true }),
        code: null,
        message: `timed out after ${TIMEOUT_MS} ms`,
      },
      {
        name: 'untrusted',
        hook: await receiver({ status: 200 }, ca.untrusted),
        code: null,
        message: /^TLS error: certificate not trusted \(\w+\)$/,
      },
    ];
    const subs = new Map<string, Subscription>();
    for (const c of cases)
      subs.set(c.name, await createSubscription(t, { tenant, url: c.hook.url(`/${c.name}`) }));
    const refused = await createSubscription(t, {
      tenant,
      url: `https://127.0.0.1:${await closedPort()}/hook`,
    });

    const res = await publish({ eventType: 'LICENCE_CREATED_SUCCESS', tenant, licence: licence() }).expect(
      202,
    );
    expect(res.body.matchedSubscriptions).toBe(cases.length + 1);

    const [refusedRecord] = await waitForDeliveries(t.dataSource, refused.id, 1);
    expect(refusedRecord).toMatchObject({
      status: 'FAILED',
      httpStatusCode: null,
      errorMessage: 'connection refused',
    });
    for (const c of cases) {
      const [record] = await waitForDeliveries(t.dataSource, subs.get(c.name)!.id, 1, 3 * TIMEOUT_MS);
      expect({ case: c.name, status: record.status, code: record.httpStatusCode }).toEqual({
        case: c.name,
        status: 'FAILED',
        code: c.code,
      });
      expect(record.errorMessage).toEqual(
        c.message instanceof RegExp ? expect.stringMatching(c.message) : c.message,
      );
      if (c.name === 'hang') {
        const took = record.createdAt.getTime() - record.sentAt.getTime();
        expect(took).toBeGreaterThanOrEqual(TIMEOUT_MS - 50);
        expect(took).toBeLessThan(TIMEOUT_MS + 1500);
      }
    }
    // The redirect was not followed; the untrusted receiver never got past the TLS handshake.
    expect(redirectTarget.receipts).toHaveLength(0);
    expect(cases.find((c) => c.name === 'untrusted')!.hook.receipts).toHaveLength(0);

    // No automatic resend: longer than a lease plus a sweep, and still one attempt each.
    await sleep(workerSettings(t.app.get(ConfigService)).leaseMs + 1000);
    for (const c of cases) {
      await expect(deliveriesOf(t.dataSource, subs.get(c.name)!.id)).resolves.toHaveLength(1);
      if (c.name !== 'untrusted')
        expect({ case: c.name, receipts: c.hook.receipts.length }).toEqual({ case: c.name, receipts: 1 });
    }
    await expect(deliveriesOf(t.dataSource, refused.id)).resolves.toHaveLength(1);
    await expect(pendingJobs(t.dataSource)).resolves.toBe(0);
  }, 30_000);

  it('does not let receivers that never answer delay a healthy one', async () => {
    const hanging = [
      await receiver({ hang: true }),
      await receiver({ hang: true }),
      await receiver({ hang: true }),
    ];
    const healthy = await receiver({ status: 200 });
    const slowTenant = uniq('slow');
    const fastTenant = uniq('fast');
    const slowSubs = [];
    for (const h of hanging) slowSubs.push(await createSubscription(t, { tenant: slowTenant, url: h.url() }));
    const fastSub = await createSubscription(t, { tenant: fastTenant, url: healthy.url() });

    // 15 jobs for dead receivers: more than all 4 slots of this instance.
    for (let i = 0; i < 5; i++) {
      await publish({ eventType: 'LICENCE_CREATED_SUCCESS', tenant: slowTenant, licence: licence() }).expect(
        202,
      );
    }
    for (const h of hanging) await h.waitFor(1);
    const started = Date.now();
    await publish({ eventType: 'LICENCE_CREATED_SUCCESS', tenant: fastTenant, licence: licence() }).expect(
      202,
    );
    await healthy.waitFor(1, TIMEOUT_MS);
    expect(Date.now() - started).toBeLessThan(TIMEOUT_MS / 2);
    // At most one request in flight per receiver here (4 slots / 4).
    expect(hanging.map((h) => h.receipts.length)).toEqual([1, 1, 1]);
    await waitForDeliveries(t.dataSource, fastSub.id, 1);

    // Clean up: dead receivers now refuse, so the 15 jobs end quickly (each FAILED once).
    for (const h of hanging) await h.close();
    for (const s of slowSubs) await waitForDeliveries(t.dataSource, s.id, 5, 4 * TIMEOUT_MS);
  }, 30_000);

  it('publishes in-process through the typed emitter; the jobs are committed when the call returns', async () => {
    const hook = await receiver({ status: 200, delayMs: 300 });
    const tenant = uniq('tenant');
    await createSubscription(t, { tenant, url: hook.url('/one') });
    await createSubscription(t, { tenant, url: hook.url('/two') });
    const publisher = t.app.get(LicenceEventPublisher);
    const timestamp = new Date('2026-01-02T03:04:05.678Z');
    const Success = LICENCE_EVENT_CLASSES[WebhookEvent.LICENCE_CREATED_SUCCESS];
    const lic = licence();
    const receipt = await publisher.emit(
      WebhookEvent.LICENCE_CREATED_SUCCESS,
      new Success({ tenant, licence: lic, timestamp }),
    );
    // Right after the call: both jobs exist (pending or in flight) or are already recorded.
    const [{ jobs, records }] = await t.dataSource.query(
      `SELECT (SELECT count(*)::int FROM webhook_jobs WHERE event_id = $1) AS jobs,
              (SELECT count(*)::int FROM webhook_deliveries WHERE event_id = $1) AS records`,
      [receipt.eventId],
    );
    expect(jobs + records).toBe(2);
    expect(receipt).toEqual({
      eventId: expect.any(Number),
      eventType: 'LICENCE_CREATED_SUCCESS',
      tenant,
      timestamp: '2026-01-02T03:04:05.678Z',
      matchedSubscriptions: 2,
    });
    const receipts = await hook.waitFor(2);
    expect(receipts.map((r) => r.body.timestamp)).toEqual([timestamp.toISOString(), timestamp.toISOString()]);

    const failed = await publisher.publish(
      new LicenceCreatedFailedEvent({ tenant, error: { message: 'x', type: 'IllegalStateException' } }),
    );
    expect(failed.matchedSubscriptions).toBe(2);
    await hook.waitFor(4);

    // A name and a payload that disagree do not compile, and are refused at run time too.
    const wrong = new LicenceCreatedFailedEvent({ tenant, error: { message: 'x', type: 'Y' } });
    // @ts-expect-error LICENCE_CREATED_SUCCESS takes a LicenceCreatedSuccessEvent
    await expect(publisher.emit(WebhookEvent.LICENCE_CREATED_SUCCESS, wrong)).rejects.toThrow(TypeError);
  });

  it('refuses an invalid in-process event and enqueues nothing', async () => {
    const publisher = t.app.get(LicenceEventPublisher);
    const tenant = uniq('tenant');
    const hook = await receiver({ status: 200 });
    await createSubscription(t, { tenant, url: hook.url() });
    const bad = new LicenceCreatedSuccessEvent({
      tenant,
      licence: licence({ phoneNumber: '(11) 98765-4321', pricing: -1 }),
    });
    const error = await publisher.publish(bad).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ValidationFailedException);
    expect((error as ValidationFailedException).fieldErrors.map((e) => e.field).sort()).toEqual([
      'licence.phoneNumber',
      'licence.pricing',
    ]);
    const [{ n }] = await t.dataSource.query(
      `SELECT count(*)::int AS n FROM webhook_events WHERE tenant = $1`,
      [tenant],
    );
    expect(n).toBe(0);
  });

  it('takes events emitted without waiting (EventEmitter2.emit); a failure is logged, not an unhandled rejection', async () => {
    const emitter = t.app.get(EventEmitter2);
    const tenant = uniq('tenant');
    const hook = await receiver({ status: 200 });
    const sub = await createSubscription(t, { tenant, url: hook.url() });
    const unhandled: unknown[] = [];
    const onUnhandled = (reason: unknown) => unhandled.push(reason);
    process.on('unhandledRejection', onUnhandled);
    try {
      const bad = new LicenceCreatedSuccessEvent({ tenant, licence: licence({ pricing: -1 }) });
      expect(emitter.emit(WebhookEvent.LICENCE_CREATED_SUCCESS, bad)).toBe(true);
      const good = licence();
      emitter.emit(
        WebhookEvent.LICENCE_CREATED_SUCCESS,
        new LicenceCreatedSuccessEvent({ tenant, licence: good }),
      );
      const [receipt] = await hook.waitFor(1);
      expect(receipt.body.licence.code).toBe(good.code);
      await waitForDeliveries(t.dataSource, sub.id, 1);
      await sleep(100);
      expect(unhandled).toEqual([]);
      expect(hook.receipts).toHaveLength(1);
    } finally {
      process.off('unhandledRejection', onUnhandled);
    }
  });

  it('enqueues inside the caller transaction: nothing on rollback, delivered once it commits', async () => {
    const publisher = t.app.get(LicenceEventPublisher);
    const outbox = t.app.get(WebhookOutbox);
    const tenant = uniq('tenant');
    const hook = await receiver({ status: 200 });
    const sub = await createSubscription(t, { tenant, url: hook.url() });

    await expect(
      t.dataSource.transaction(async (manager) => {
        const r = await publisher.publish(new LicenceCreatedSuccessEvent({ tenant, licence: licence() }), {
          transaction: manager,
        });
        expect(r.matchedSubscriptions).toBe(1);
        throw new Error('licence insert failed');
      }),
    ).rejects.toThrow('licence insert failed');

    const committed = licence();
    await t.dataSource.transaction(async (manager) => {
      const r = await outbox.enqueue(new LicenceCreatedSuccessEvent({ tenant, licence: committed }), manager);
      // Not visible outside the transaction yet, so no instance can deliver it.
      const [{ n }] = await t.dataSource.query(
        `SELECT count(*)::int AS n FROM webhook_jobs WHERE event_id = $1`,
        [r.eventId],
      );
      expect(n).toBe(0);
      await sleep(300);
    });
    const [receipt] = await hook.waitFor(1);
    expect(receipt.body.licence.code).toBe(committed.code);
    await waitForDeliveries(t.dataSource, sub.id, 1);
    await sleep(300);
    expect(hook.receipts).toHaveLength(1); // the rolled-back event never went out
    const [{ n }] = await t.dataSource.query(
      `SELECT count(*)::int AS n FROM webhook_events WHERE tenant = $1`,
      [tenant],
    );
    expect(n).toBe(1);
  });

  it('drops pending jobs and history with their subscription, and keeps working', async () => {
    const hook = await receiver({ status: 200 });
    const tenant = uniq('tenant');
    const sub = await createSubscription(t, { tenant, url: hook.url() });
    await publish({ eventType: 'LICENCE_CREATED_SUCCESS', tenant, licence: licence() }).expect(202);
    await waitForDeliveries(t.dataSource, sub.id, 1);

    hook.behaviour = { hang: true };
    await publish({ eventType: 'LICENCE_CREATED_SUCCESS', tenant, licence: licence() }).expect(202);
    await publish({ eventType: 'LICENCE_CREATED_SUCCESS', tenant, licence: licence() }).expect(202);
    await hook.waitFor(2); // one in flight, one pending
    await expect(pendingJobs(t.dataSource, sub.id)).resolves.toBe(2);

    await t.dataSource.getRepository(Subscription).delete(sub.id);
    await expect(pendingJobs(t.dataSource, sub.id)).resolves.toBe(0);
    await expect(deliveriesOf(t.dataSource, sub.id)).resolves.toHaveLength(0);

    await sleep(TIMEOUT_MS + 500); // the in-flight one times out: its record has nowhere to go
    await expect(deliveriesOf(t.dataSource, sub.id)).resolves.toHaveLength(0);
    const other = await receiver({ status: 200 });
    const next = await createSubscription(t, { tenant, url: other.url() });
    await publish({ eventType: 'LICENCE_CREATED_SUCCESS', tenant, licence: licence() }).expect(202);
    await waitForDeliveries(t.dataSource, next.id, 1);
  });
  it('lets a publish racing the DELETE of a matching subscription wait for it and skip it', async () => {
    const hook = await receiver({ status: 200 });
    const tenant = uniq('tenant');
    const gone = await createSubscription(t, { tenant, url: hook.url('/gone') });
    const kept = await createSubscription(t, { tenant, url: hook.url('/kept') });
    const deleter = new pg.Client({ connectionString: t.databaseUrl });
    await deleter.connect();
    try {
      await deleter.query('BEGIN');
      await deleter.query('DELETE FROM subscriptions WHERE id = $1', [gone.id]);
      const publishing = publish({ eventType: 'LICENCE_CREATED_SUCCESS', tenant, licence: licence() }).then(
        (res) => res,
      );
      await sleep(300); // the publish has read both subscriptions and waits for the delete
      await deleter.query('COMMIT');
      const res = await publishing;
      expect(res.status).toBe(202);
      expect(res.body.matchedSubscriptions).toBe(1);
    } finally {
      await deleter.end();
    }
    await waitForDeliveries(t.dataSource, kept.id, 1);
    expect(hook.receipts.map((r) => r.path)).toEqual(['/kept']);
  });

  it("drops the old tenant's pending deliveries and history when an administrator moves a subscription, even racing a publish", async () => {
    const hook = await receiver({ status: 200 });
    const [from, to] = [uniq('tenant'), uniq('tenant')];
    const sub = await createSubscription(t, { tenant: from, url: hook.url('/before') });
    await publish({ eventType: 'LICENCE_CREATED_SUCCESS', tenant: from, licence: licence() }).expect(202);
    await waitForDeliveries(t.dataSource, sub.id, 1);

    // A publish of the old tenant in progress (its transaction open) while the move is requested.
    const runner = t.dataSource.createQueryRunner();
    await runner.connect();
    let moving: Promise<{ status: number; body: Record<string, any> }>;
    try {
      await runner.startTransaction();
      const receipt = await t.app
        .get(WebhookOutbox)
        .enqueue(new LicenceCreatedSuccessEvent({ tenant: from, licence: licence() }), runner);
      expect(receipt.matchedSubscriptions).toBe(1);
      moving = t
        .http()
        .put(`/webhooks/subscriptions/${sub.id}`)
        .set('authorization', `Bearer ${admin.token}`)
        .send({ name: 'moved', url: hook.url('/after'), events: ['LICENCE_CREATED_SUCCESS'], tenant: to })
        .then((res) => res);
      await sleep(300); // the move waits for the publish
      await runner.commitTransaction();
    } finally {
      await runner.release();
    }
    const moved = await moving;
    expect(moved.status).toBe(200);
    expect(moved.body.tenant).toBe(to);
    await expect(pendingJobs(t.dataSource, sub.id)).resolves.toBe(0);
    await sleep(500); // a delivery claimed just before the move would have been recorded by now
    await expect(deliveriesOf(t.dataSource, sub.id)).resolves.toHaveLength(0);
    expect(hook.receipts.filter((r) => r.path === '/after')).toHaveLength(0);

    // From now on it is the new tenant's: its events match, the old tenant's do not.
    const old = await publish({ eventType: 'LICENCE_CREATED_SUCCESS', tenant: from, licence: licence() });
    expect(old.body.matchedSubscriptions).toBe(0);
    await publish({ eventType: 'LICENCE_CREATED_SUCCESS', tenant: to, licence: licence() }).expect(202);
    const [record] = await waitForDeliveries(t.dataSource, sub.id, 1);
    expect(record.status).toBe('SUCCESS');
    expect(hook.receipts.filter((r) => r.path === '/after')).toHaveLength(1);
  });
  it('never sends a finished delivery again while its record waits to be written past its lease', async () => {
    const hook = await receiver({ status: 200, delayMs: 1000 });
    const tenant = uniq('tenant');
    const sub = await createSubscription(t, { tenant, url: hook.url() });
    const blocker = new pg.Client({ connectionString: t.databaseUrl });
    await blocker.connect();
    try {
      await publish({ eventType: 'LICENCE_CREATED_SUCCESS', tenant, licence: licence() }).expect(202);
      await hook.waitFor(1);
      // Records cannot be written for longer than the lease (1,500 + 2,000 ms) plus a sweep.
      await blocker.query('BEGIN');
      await blocker.query('LOCK TABLE webhook_deliveries IN EXCLUSIVE MODE');
      await sleep(5000);
      const [{ attempts }] = await t.dataSource.query(
        `SELECT attempts FROM webhook_jobs WHERE subscription_id = $1`,
        [sub.id],
      );
      expect(attempts).toBeGreaterThan(1); // its lease ran out and the sweep claimed it again
      await blocker.query('COMMIT');
    } finally {
      await blocker.end();
    }
    await waitForDeliveries(t.dataSource, sub.id, 1);
    await sleep(300);
    expect(hook.receipts).toHaveLength(1);
    await expect(deliveriesOf(t.dataSource, sub.id)).resolves.toHaveLength(1);
    await expect(pendingJobs(t.dataSource, sub.id)).resolves.toBe(0);
  }, 20_000);
  it('does not send the jobs it claimed ahead for a subscription deleted through the API meanwhile', async () => {
    // 4 slots: 1 request in flight per receiver, 1 more claimed ahead and waiting here.
    const hook = await receiver({ status: 200, delayMs: 300 });
    const tenant = uniq('tenant');
    const sub = await createSubscription(t, { tenant, url: hook.url() });
    const owner = await t.createUser({ tenant });
    await t.dataSource.transaction(async (manager) => {
      const publisher = t.app.get(LicenceEventPublisher);
      for (let i = 0; i < 2; i++) {
        await publisher.publish(new LicenceCreatedSuccessEvent({ tenant, licence: licence() }), {
          transaction: manager,
        });
      }
    });
    await hook.waitFor(1); // the first is in flight for 300 ms, the second claimed and waiting
    await t
      .http()
      .delete(`/webhooks/subscriptions/${sub.id}`)
      .set('authorization', `Bearer ${owner.token}`)
      .expect(200);
    await sleep(800); // the first has been answered; the second would have gone out by now
    expect(hook.receipts).toHaveLength(1);
    await expect(pendingJobs(t.dataSource, sub.id)).resolves.toBe(0);
    await expect(deliveriesOf(t.dataSource, sub.id)).resolves.toHaveLength(0);
  });
});
