import { ConflictException } from '@nestjs/common';
import { ValidationFailedException } from '../src/common/errors/validation-failed.exception';
import { LicenceCreatedFailedEvent } from '../src/licence-events/licence-created-failed.event';
import { LicenceCreatedSuccessEvent } from '../src/licence-events/licence-created-success.event';
import { LicenceEventPublisher } from '../src/dispatcher/licence-event.publisher';
import { WebhookOutbox } from '../src/dispatcher/webhook-outbox.service';
import { createSubscription, licence, pendingJobs, sleep, startDispatcherApp } from './support/dispatcher';
import { RawConnection } from './support/raw-http';
import { Receiver } from './support/receiver';
import { testCa } from './support/test-ca';
import type { TestApp, TestUser } from './support/test-app';
import { uniq } from './support/test-app';

const PATH = '/admin/licence-events';
const REPLAYED = 'idempotent-replayed';

describe('Idempotent publish (contract section 11)', () => {
  let t: TestApp;
  /** A second instance on the same database: one event per key across instances. */
  let other: TestApp;
  let admin: TestUser;
  let receiver: Receiver;

  beforeAll(async () => {
    t = await startDispatcherApp({ WEBHOOK_TIMEOUT_MS: '15000' });
    other = await startDispatcherApp(
      { WEBHOOK_TIMEOUT_MS: '15000', JWT_SECRET: t.env.JWT_SECRET, SECRETS_KEY: t.env.SECRETS_KEY },
      { databaseUrl: t.databaseUrl },
    );
    admin = await t.createUser({ admin: true });
    receiver = await Receiver.start(testCa().server, { status: 200 });
  });
  afterAll(async () => {
    await receiver?.close();
    await other?.close();
    await t?.close();
  });

  const successBody = (tenant: string, l = licence()) => ({
    eventType: 'LICENCE_CREATED_SUCCESS',
    tenant,
    licence: l,
  });
  const publish = (body: object, key?: string, app = t) => {
    const req = app.http().post(PATH).set('authorization', `Bearer ${admin.token}`);
    return (key === undefined ? req : req.set('idempotency-key', key)).send(body);
  };
  /** A tenant with two subscriptions at the receiver, each on its own path. */
  const tenantWithTwoSubscriptions = async () => {
    const tenant = uniq('tenant');
    const paths = [`/${uniq('a')}`, `/${uniq('b')}`];
    for (const path of paths) await createSubscription(t, { tenant, url: receiver.url(path) });
    return { tenant, paths };
  };
  const eventsOf = async (tenant: string) =>
    (await t.dataSource.query(`SELECT count(*)::int AS n FROM webhook_events WHERE tenant = $1`, [tenant]))[0]
      .n as number;
  const receivedAt = (path: string) => receiver.receipts.filter((r) => r.path === path);
  /** Waits until each path got `count` deliveries, then a while longer for any duplicate. */
  const expectDeliveredOnce = async (paths: string[], tenant: string) => {
    const deadline = Date.now() + 20_000;
    while (paths.some((p) => receivedAt(p).length < 1) && Date.now() < deadline) await sleep(50);
    await sleep(1_000);
    for (const path of paths) {
      expect({ path, deliveries: receivedAt(path).length }).toEqual({ path, deliveries: 1 });
      expect(receivedAt(path)[0].body.tenant).toBe(tenant);
    }
    expect(await pendingJobs(t.dataSource)).toBe(0);
  };

  it('answers the first receipt again, with Idempotent-Replayed: true, and queues nothing', async () => {
    const { tenant, paths } = await tenantWithTwoSubscriptions();
    const key = uniq('key');
    const l = licence();
    const first = await publish(successBody(tenant, l), key).expect(202);
    expect(first.headers[REPLAYED]).toBeUndefined();
    expect(first.body.matchedSubscriptions).toBe(2);

    // A subscription added since would match a new event: the replay still answers the first receipt.
    await createSubscription(t, { tenant, url: receiver.url(`/${uniq('late')}`) });
    await sleep(10); // a new event would have another timestamp
    // The same event with its members in another order, on the other instance.
    const reordered = {
      licence: Object.fromEntries(Object.entries(l).reverse()),
      tenant,
      eventType: 'LICENCE_CREATED_SUCCESS',
    };
    for (const [body, app] of [
      [successBody(tenant, l), t],
      [reordered, other],
    ] as const) {
      const again = await publish(body, key, app).expect(202);
      expect(again.headers[REPLAYED]).toBe('true');
      expect(again.headers['content-type']).toBe('application/hal+json;charset=UTF-8');
      expect(again.body).toEqual(first.body);
    }
    expect(await eventsOf(tenant)).toBe(1);
    await expectDeliveredOnce(paths, tenant);
  });

  it('refuses the key with another body: 409 naming the key; the first event keeps it', async () => {
    const tenant = uniq('tenant');
    const key = uniq('key');
    const first = await publish(successBody(tenant), key).expect(202);
    const failed = { eventType: 'LICENCE_CREATED_FAILED', tenant, error: { message: 'no seats', type: 'X' } };
    for (const body of [successBody(tenant), failed]) {
      const res = await publish(body, key);
      expect(res.status).toBe(409);
      expect(res.headers[REPLAYED]).toBeUndefined();
      expect(res.body).toMatchObject({ status: 409, error: 'Conflict', path: PATH });
      expect(res.body.message).toContain(`Idempotency-Key "${key}"`);
    }
    expect(await eventsOf(tenant)).toBe(1);
    expect(first.body.eventId).toEqual(expect.any(Number));
  });

  it('keeps keys per tenant: another tenant uses the same key for its own event', async () => {
    const key = uniq('key');
    const [a, b] = [uniq('tenant'), uniq('tenant')];
    const l = licence();
    const first = await publish(successBody(a, l), key).expect(202);
    const second = await publish(successBody(b, l), key).expect(202);
    expect(second.headers[REPLAYED]).toBeUndefined();
    expect(second.body.eventId).not.toBe(first.body.eventId);
    expect(second.body.tenant).toBe(b);
    const againA = await publish(successBody(a, l), key).expect(202);
    expect(againA.headers[REPLAYED]).toBe('true');
    expect(againA.body).toEqual(first.body);
    expect([await eventsOf(a), await eventsOf(b)]).toEqual([1, 1]);
  });

  it.each([
    ['empty', ''],
    ['256 characters', 'k'.repeat(256)],
    ['non-ASCII', 'clé-1'],
    ['a space', 'a b'],
    ['a tab', 'a\tb'],
  ])('refuses a key that is %s: 400 naming the header, nothing published', async (_, key) => {
    const tenant = uniq('tenant');
    const res = await publish(successBody(tenant), key);
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ status: 400, error: 'Bad Request', path: PATH });
    expect(res.body.errors).toEqual([
      { field: 'Idempotency-Key', message: 'Idempotency-Key must be 1 to 255 visible ASCII characters' },
    ]);
    expect(await eventsOf(tenant)).toBe(0);
  });

  it('accepts a key of 255 visible ASCII characters', async () => {
    const tenant = uniq('tenant');
    const key = '!~'.repeat(127) + 'x';
    const body = successBody(tenant);
    const first = await publish(body, key).expect(202);
    const again = await publish(body, key).expect(202);
    expect(again.headers[REPLAYED]).toBe('true');
    expect(again.body.eventId).toBe(first.body.eventId);
  });

  it.each([
    ['a control character', 'a\x01b'],
    ['DEL', 'a\x7fb'],
  ])(
    "refuses a key with %s (Node's HTTP parser): 400 with the error body, nothing published",
    async (_, key) => {
      const tenant = uniq('tenant');
      const body = JSON.stringify(successBody(tenant));
      const conn = await RawConnection.open(t.url);
      await conn.write(
        Buffer.from(
          `POST ${PATH} HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${admin.token}\r\n` +
            `Content-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\n` +
            `Idempotency-Key: ${key}\r\n\r\n${body}`,
          'latin1',
        ),
      );
      const res = await conn.response();
      conn.destroy();
      expect(res?.status).toBe(400);
      expect(JSON.parse(res!.body)).toMatchObject({ status: 400, error: 'Bad Request' });
      expect(await eventsOf(tenant)).toBe(0);
    },
  );

  it('makes one event from 20 concurrent publishes with one key on two instances, each answered its receipt', async () => {
    const { tenant, paths } = await tenantWithTwoSubscriptions();
    const key = uniq('key');
    const body = successBody(tenant);
    const answers = await Promise.all(
      Array.from({ length: 20 }, (_, i) => publish(body, key, i % 2 === 0 ? t : other)),
    );
    expect(answers.map((a) => a.status)).toEqual(Array(20).fill(202));
    const eventIds = new Set(answers.map((a) => a.body.eventId));
    expect(eventIds.size).toBe(1);
    for (const a of answers) expect(a.body).toEqual(answers[0].body);
    expect(answers.filter((a) => a.headers[REPLAYED] === undefined)).toHaveLength(1);
    expect(answers.filter((a) => a.headers[REPLAYED] === 'true')).toHaveLength(19);
    expect(answers[0].body.matchedSubscriptions).toBe(2);
    expect(await eventsOf(tenant)).toBe(1);
    await expectDeliveredOnce(paths, tenant);
  });

  it('in process: the publisher with a key answers the first receipt again, and refuses another event', async () => {
    const publisher = t.app.get(LicenceEventPublisher);
    const tenant = uniq('tenant');
    const idempotencyKey = uniq('key');
    const l = licence();
    const first = await publisher.publish(new LicenceCreatedSuccessEvent({ tenant, licence: l }), {
      idempotencyKey,
    });
    expect(first.replayed).toBeUndefined();
    const later = new LicenceCreatedSuccessEvent({
      tenant,
      licence: l,
      timestamp: new Date(Date.now() + 60_000),
    });
    await expect(publisher.publish(later, { idempotencyKey })).resolves.toEqual({ ...first, replayed: true });
    const other = new LicenceCreatedFailedEvent({ tenant, error: { message: 'm', type: 't' } });
    await expect(publisher.publish(other, { idempotencyKey })).rejects.toBeInstanceOf(ConflictException);
    await expect(
      publisher.publish(new LicenceCreatedSuccessEvent({ tenant, licence: l }), { idempotencyKey: 'a b' }),
    ).rejects.toBeInstanceOf(ValidationFailedException);
    expect(await eventsOf(tenant)).toBe(1);
  });

  it('transactional outbox: a key used in a transaction that rolls back stays free', async () => {
    const outbox = t.app.get(WebhookOutbox);
    const tenant = uniq('tenant');
    const idempotencyKey = uniq('key');
    const rolledBack = new Error('roll back');
    const inside = t.dataSource.transaction(async (manager) => {
      const event = new LicenceCreatedSuccessEvent({ tenant, licence: licence() });
      const first = await outbox.enqueue(event, manager, { idempotencyKey });
      // Inside the transaction the key is already taken by its own event.
      await expect(outbox.enqueue(event, manager, { idempotencyKey })).resolves.toEqual({
        ...first,
        replayed: true,
      });
      throw rolledBack;
    });
    await expect(inside).rejects.toBe(rolledBack);
    expect(await eventsOf(tenant)).toBe(0);

    const failed = new LicenceCreatedFailedEvent({ tenant, error: { message: 'm', type: 't' } });
    const receipt = await outbox.enqueue(failed, undefined, { idempotencyKey });
    expect(receipt).toMatchObject({ eventType: 'LICENCE_CREATED_FAILED', tenant });
    expect(receipt.replayed).toBeUndefined();
    expect(await eventsOf(tenant)).toBe(1);
  });

  it('transactional outbox: a publish with a key held by an open transaction waits for its commit, then replays', async () => {
    const outbox = t.app.get(WebhookOutbox);
    const tenant = uniq('tenant');
    const idempotencyKey = uniq('key');
    const l = licence();
    const runner = t.dataSource.createQueryRunner();
    await runner.startTransaction();
    try {
      const first = await outbox.enqueue(new LicenceCreatedSuccessEvent({ tenant, licence: l }), runner, {
        idempotencyKey,
      });
      let answered = false;
      const waiting = publish(successBody(tenant, l), idempotencyKey, other).then((r) => {
        answered = true;
        return r;
      });
      await sleep(500);
      expect(answered).toBe(false);
      await runner.commitTransaction();
      const res = await waiting;
      expect(res.status).toBe(202);
      expect(res.headers[REPLAYED]).toBe('true');
      expect(res.body).toEqual({ ...first, replayed: undefined });
    } finally {
      if (runner.isTransactionActive) await runner.rollbackTransaction();
      await runner.release();
    }
    expect(await eventsOf(tenant)).toBe(1);
  });
});
