import { randomBytes } from 'node:crypto';
import { Webhook } from 'standardwebhooks';
import { UserRole, WebhookEvent } from '../src/common/reference/enums';
import { migrations } from '../migrations';
import { runMigrations } from '../src/database/migrate';
import { createEmptyDatabase, undoMigrationsAfter } from './support/database';
import { licence, startDispatcherApp, waitForDeliveries } from './support/dispatcher';
import { LogCapture } from './support/log-capture';
import { Receiver } from './support/receiver';
import { signaturesOf as signatures, verifyReceipt as verify } from './support/signatures';
import { testCa } from './support/test-ca';
import type { TestApp, TestUser } from './support/test-app';
import { uniq } from './support/test-app';

const PATH = '/webhooks/subscriptions';
const HAL = 'application/hal+json;charset=UTF-8';
const KEY = /^whsec_[A-Za-z0-9+/]{32}$/;

const bearer = (user: TestUser) => ({ authorization: `Bearer ${user.token}` });
const keyOf = (bytes: number) => `whsec_${randomBytes(bytes).toString('base64')}`;

describe('Signing secrets and Standard Webhooks signatures (contract section 9)', () => {
  let t: TestApp;
  let admin: TestUser;
  let partner: TestUser;
  const receivers: Receiver[] = [];
  const capture = new LogCapture();
  /** Every secret seen, to look for in the logs at the end. */
  const secretsSeen: string[] = [];

  const receiver = async () => {
    const r = await Receiver.start(testCa().server, { status: 200 });
    receivers.push(r);
    return r;
  };
  const subscribe = async (user: TestUser, url: string, overrides: Record<string, unknown> = {}) => {
    const res = await t
      .http()
      .post(PATH)
      .set(bearer(user))
      .send({ name: uniq('signed'), url, events: ['LICENCE_CREATED_SUCCESS'], ...overrides })
      .expect(200);
    return res.body as { id: number; tenant: string };
  };
  const getSecret = async (id: number, user: TestUser = partner) => {
    const res = await t.http().get(`${PATH}/${id}/secret`).set(bearer(user)).expect(200);
    expect(res.headers['content-type']).toBe(HAL);
    expect(Object.keys(res.body)).toEqual(['key']);
    secretsSeen.push(res.body.key);
    return res.body.key as string;
  };
  const rotate = (id: number, user: TestUser = partner, body?: object) => {
    const req = t.http().post(`${PATH}/${id}/secret/rotate`).set(bearer(user));
    return body === undefined ? req : req.send(body);
  };
  const publish = async (tenant: string) => {
    const res = await t
      .http()
      .post('/admin/licence-events')
      .set(bearer(admin))
      .send({ eventType: WebhookEvent.LICENCE_CREATED_SUCCESS, tenant, licence: licence() })
      .expect(202);
    return String(res.body.eventId);
  };

  beforeAll(async () => {
    // Request logging on (as in production), every line captured for the secrets check.
    t = await startDispatcherApp({ NODE_ENV: 'production', LOG_LEVEL: 'info' }, { logDestination: capture });
    admin = await t.createUser({ admin: true });
    partner = await t.createUser();
  });
  afterAll(async () => {
    for (const r of receivers) await r.close();
    await t?.close();
  });

  it('gives every new subscription its own whsec_ secret of 24 random bytes, stored encrypted', async () => {
    const a = await subscribe(partner, 'https://receiver.example.com/a');
    const b = await subscribe(partner, 'https://receiver.example.com/b');
    const [keyA, keyB] = [await getSecret(a.id), await getSecret(b.id)];
    expect(keyA).toMatch(KEY);
    expect(Buffer.from(keyA.slice(6), 'base64')).toHaveLength(24);
    expect(keyB).not.toBe(keyA);
    await expect(getSecret(a.id)).resolves.toBe(keyA);
    const [row] = await t.dataSource.query(
      'SELECT signing_secret_encrypted AS sealed FROM subscriptions WHERE id = $1',
      [a.id],
    );
    expect(row.sealed).toMatch(/^v2\./);
    expect(row.sealed).not.toContain(keyA.slice(6));
  });

  it('never puts the secret in a subscription body (POST, GET, PUT, lists, DELETE)', async () => {
    const created = await t
      .http()
      .post(PATH)
      .set(bearer(partner))
      .send({
        name: uniq('bodies'),
        url: 'https://receiver.example.com/c',
        events: ['LICENCE_CREATED_SUCCESS'],
      })
      .expect(200);
    const id = created.body.id as number;
    const key = await getSecret(id);
    const bodies = [
      created.text,
      (await t.http().get(`${PATH}/${id}`).set(bearer(partner)).expect(200)).text,
      (await t.http().get(PATH).set(bearer(partner)).expect(200)).text,
      (await t.http().get(`${PATH}/active`).set(bearer(partner)).expect(200)).text,
      (
        await t
          .http()
          .put(`${PATH}/${id}`)
          .set(bearer(partner))
          .send({ ...created.body, name: 'renamed' })
          .expect(200)
      ).text,
    ];
    expect(bodies[2]).toContain(`"id":${id}`); // the list has it
    for (const text of bodies) {
      expect(text).not.toContain(key.slice(6));
      expect(text).not.toMatch(/whsec_|signing|secret/i);
    }
    // A PUT keeps the secret.
    await expect(getSecret(id)).resolves.toBe(key);
    const removed = await t.http().delete(`${PATH}/${id}`).set(bearer(partner)).expect(200);
    expect(removed.text).not.toContain(key.slice(6));
  });

  it('signs every delivery; webhook-id is the event id on every copy, each copy verifies with its own secret only', async () => {
    const [hookA, hookB] = [await receiver(), await receiver()];
    const a = await subscribe(partner, hookA.url());
    const b = await subscribe(partner, hookB.url());
    const [keyA, keyB] = [await getSecret(a.id), await getSecret(b.id)];

    const before = Math.floor(Date.now() / 1000);
    const eventId = await publish(partner.tenant);
    const [[copyA], [copyB]] = await Promise.all([hookA.waitFor(1), hookB.waitFor(1)]);
    const after = Math.ceil(Date.now() / 1000);

    for (const [copy, key, otherKey] of [
      [copyA, keyA, keyB],
      [copyB, keyB, keyA],
    ] as const) {
      expect(copy.headers['webhook-id']).toBe(eventId);
      const timestamp = Number(copy.headers['webhook-timestamp']);
      expect(String(timestamp)).toBe(copy.headers['webhook-timestamp']); // integer seconds
      expect(timestamp).toBeGreaterThanOrEqual(before);
      expect(timestamp).toBeLessThanOrEqual(after);
      expect(signatures(copy.headers)).toEqual([expect.stringMatching(/^v1,[A-Za-z0-9+/]{43}=$/)]);
      expect(verify(key, copy)).toEqual(copy.body);
      expect(() => verify(otherKey, copy)).toThrow('No matching signature found');
      // Signed over the exact bytes: one byte changed and it no longer verifies.
      expect(() =>
        new Webhook(key).verify(
          copy.raw.replace('"tenant"', '"tenant" '),
          copy.headers as Record<string, string>,
        ),
      ).toThrow('No matching signature found');
    }
    expect(copyA.raw).toBe(copyB.raw);
    await waitForDeliveries(t.dataSource, a.id, 1);
  });

  it('rotation: both secrets sign during the overlap (new first), each verifying on its own', async () => {
    const hook = await receiver();
    const sub = await subscribe(partner, hook.url());
    const oldKey = await getSecret(sub.id);

    const rotatedAt = Date.now();
    const res = await rotate(sub.id).expect(200);
    expect(res.headers['content-type']).toBe(HAL);
    expect(Object.keys(res.body)).toEqual(['key', 'previousKeyExpiresAt']);
    // The overlap (WEBHOOK_SECRET_OVERLAP_MS, 24 hours by default) as the service counted it.
    const expiresAt = Date.parse(res.body.previousKeyExpiresAt);
    expect(res.body.previousKeyExpiresAt).toBe(new Date(expiresAt).toISOString());
    expect(expiresAt - rotatedAt).toBeGreaterThan(86_400_000 - 60_000);
    expect(expiresAt - rotatedAt).toBeLessThan(86_400_000 + 60_000);
    const newKey = res.body.key as string;
    secretsSeen.push(newKey);
    expect(newKey).toMatch(KEY);
    expect(newKey).not.toBe(oldKey);
    await expect(getSecret(sub.id)).resolves.toBe(newKey);

    await publish(partner.tenant);
    const [copy] = await hook.waitFor(1);
    const [first, second] = signatures(copy.headers);
    expect(signatures(copy.headers)).toHaveLength(2);
    const timestamp = new Date(Number(copy.headers['webhook-timestamp']) * 1000);
    const id = String(copy.headers['webhook-id']);
    expect(first).toBe(new Webhook(newKey).sign(id, timestamp, copy.raw));
    expect(second).toBe(new Webhook(oldKey).sign(id, timestamp, copy.raw));
    expect(verify(newKey, copy)).toEqual(copy.body);
    expect(verify(oldKey, copy)).toEqual(copy.body);
    expect(() => verify(keyOf(24), copy)).toThrow('No matching signature found');
  });

  it('rotation with a key of your own: that key signs from then on', async () => {
    const hook = await receiver();
    const sub = await subscribe(partner, hook.url());
    const given = keyOf(64);
    secretsSeen.push(given);
    await expect(rotate(sub.id, partner, { key: given }).expect(200)).resolves.toMatchObject({
      body: { key: given },
    });
    await expect(getSecret(sub.id)).resolves.toBe(given);
    await publish(partner.tenant);
    const [copy] = await hook.waitFor(1);
    expect(signatures(copy.headers)[0]).toBe(
      new Webhook(given).sign(
        String(copy.headers['webhook-id']),
        new Date(Number(copy.headers['webhook-timestamp']) * 1000),
        copy.raw,
      ),
    );
    expect(verify(given, copy)).toEqual(copy.body);
  });

  it.each([
    ['no prefix', randomBytes(24).toString('base64'), /whsec_ followed by base64/],
    ['not base64', 'whsec_!!!!' + randomBytes(24).toString('base64'), /whsec_ followed by base64/],
    ['missing padding', `whsec_${randomBytes(25).toString('base64').replace(/=+$/, '')}`, /base64/],
    ['an empty key', 'whsec_', /whsec_ followed by base64/],
    ['23 bytes', keyOf(23), /24 to 64 bytes \(it encodes 23\)/],
    ['65 bytes', keyOf(65), /24 to 64 bytes \(it encodes 65\)/],
    ['a number', 42, /key must be a string/],
  ])('rotate refuses %s: 400 naming key, the secret unchanged', async (_what, key, message) => {
    const sub = await subscribe(partner, 'https://receiver.example.com/bad');
    const before = await getSecret(sub.id);
    const res = await rotate(sub.id, partner, { key }).expect(400);
    expect(res.headers['content-type']).toBe(HAL);
    expect(res.body).toMatchObject({
      status: 400,
      error: 'Bad Request',
      path: `${PATH}/${sub.id}/secret/rotate`,
    });
    expect(res.body.errors).toEqual([{ field: 'key', message: expect.stringMatching(message) }]);
    await expect(getSecret(sub.id)).resolves.toBe(before);
  });

  it('rotate refuses unknown fields and malformed JSON, and takes an empty object, an empty body or none', async () => {
    const sub = await subscribe(partner, 'https://receiver.example.com/fields');
    const res = await rotate(sub.id, partner, { key: keyOf(24), secret: 'x' }).expect(400);
    expect(res.body.errors).toEqual([{ field: 'secret', message: 'secret is not a known field' }]);
    const rotateWithText = (text: string) =>
      rotate(sub.id).set('content-type', 'application/json').send(text);
    await rotateWithText('{"key":').expect(400);
    const one = (await rotate(sub.id, partner, {}).expect(200)).body.key;
    const two = (await rotate(sub.id).expect(200)).body.key;
    // A JSON Content-Type with no bytes after it (curl -H 'Content-Type: application/json' -X POST).
    const three = (await rotateWithText('').expect(200)).body.key;
    expect([one, two, three]).toEqual([
      expect.stringMatching(KEY),
      expect.stringMatching(KEY),
      expect.stringMatching(KEY),
    ]);
    expect(new Set([one, two, three]).size).toBe(3);
    secretsSeen.push(one, two, three);
  });

  it('permissions: another tenant 404, ROLE_CLIENT and ROLE_BRANCH 403, no token 401, administrators any tenant', async () => {
    const sub = await subscribe(partner, 'https://receiver.example.com/perm');
    const key = await getSecret(sub.id);
    const other = await t.createUser();
    const client = await t.createUser({ role: UserRole.ROLE_CLIENT, tenant: partner.tenant });
    const branch = await t.createUser({ role: UserRole.ROLE_BRANCH, tenant: partner.tenant });

    for (const [method, suffix] of [
      ['get', '/secret'],
      ['post', '/secret/rotate'],
    ] as const) {
      const call = (id: number | string) => t.http()[method](`${PATH}/${id}${suffix}`);
      const path = `${PATH}/${sub.id}${suffix}`;
      const res = await call(sub.id).set(bearer(other)).expect(404);
      expect(res.body).toMatchObject({ status: 404, message: `Subscription ${sub.id} not found`, path });
      expect(res.text).not.toContain(key.slice(6));
      await call(sub.id).set(bearer(client)).expect(403);
      await call(sub.id).set(bearer(branch)).expect(403);
      await call(sub.id).expect(401);
      await call(0).set(bearer(partner)).expect(400);
      await call(999999).set(bearer(admin)).expect(404);
    }
    // Nothing changed by the refused rotations.
    await expect(getSecret(sub.id)).resolves.toBe(key);
    await expect(getSecret(sub.id, admin)).resolves.toBe(key);
    const rotated = (await rotate(sub.id, admin).expect(200)).body.key;
    secretsSeen.push(rotated);
    await expect(getSecret(sub.id)).resolves.toBe(rotated);
  });

  it('a subscription without a secret (from before signing) gets one on its first read, once', async () => {
    const sub = await subscribe(partner, 'https://receiver.example.com/legacy');
    await t.dataSource.query('UPDATE subscriptions SET signing_secret_encrypted = NULL WHERE id = $1', [
      sub.id,
    ]);
    const [first, second] = await Promise.all([getSecret(sub.id), getSecret(sub.id)]);
    expect(first).toMatch(KEY);
    expect(second).toBe(first);
    await expect(getSecret(sub.id)).resolves.toBe(first);
  });

  it('custom headers may not take the names of the signature headers', async () => {
    for (const headerName of ['webhook-id', 'Webhook-Timestamp', 'WEBHOOK-SIGNATURE']) {
      const res = await t
        .http()
        .post(PATH)
        .set(bearer(partner))
        .send({
          name: uniq('reserved'),
          url: 'https://receiver.example.com/h',
          events: ['LICENCE_CREATED_SUCCESS'],
          headerName,
          headerValue: 'x',
        })
        .expect(400);
      expect(res.body.errors).toEqual([
        { field: 'headerName', message: expect.stringContaining('a header the service sets itself') },
      ]);
    }
  });

  it('never logs a secret', () => {
    expect(secretsSeen.length).toBeGreaterThan(10);
    expect(capture.records().some((r) => r.msg === 'request completed')).toBe(true);
    for (const key of secretsSeen) expect(capture.text).not.toContain(key.slice(6));
  });
});

describe('Signing secrets: after the overlap, and subscriptions from before signing', () => {
  let t: TestApp | undefined;
  let dropDatabase: (() => Promise<void>) | undefined;
  const receivers: Receiver[] = [];

  afterEach(async () => {
    for (const r of receivers.splice(0)) await r.close();
    await t?.close();
    t = undefined;
    await dropDatabase?.();
    dropDatabase = undefined;
  });

  it('the previous secret stops signing once WEBHOOK_SECRET_OVERLAP_MS has passed', async () => {
    t = await startDispatcherApp({ WEBHOOK_SECRET_OVERLAP_MS: '1' });
    const admin = await t.createUser({ admin: true });
    const hook = await Receiver.start(testCa().server, { status: 200 });
    receivers.push(hook);
    const { body: sub } = await t
      .http()
      .post(PATH)
      .set(bearer(admin))
      .send({
        name: uniq('after'),
        url: hook.url(),
        events: ['LICENCE_CREATED_SUCCESS'],
        tenant: 'after-overlap',
      })
      .expect(200);
    const oldKey = (await t.http().get(`${PATH}/${sub.id}/secret`).set(bearer(admin)).expect(200)).body.key;
    const newKey = (await t.http().post(`${PATH}/${sub.id}/secret/rotate`).set(bearer(admin)).expect(200))
      .body.key;
    await t
      .http()
      .post('/admin/licence-events')
      .set(bearer(admin))
      .send({ eventType: WebhookEvent.LICENCE_CREATED_SUCCESS, tenant: 'after-overlap', licence: licence() })
      .expect(202);
    const [copy] = await hook.waitFor(1);
    expect(signatures(copy.headers)).toHaveLength(1);
    expect(verify(newKey, copy)).toEqual(copy.body);
    expect(() => verify(oldKey, copy)).toThrow('No matching signature found');
  });

  it('an upgrade: the migration runs at start-up, then subscriptions from before get their secrets, before any delivery', async () => {
    // A database as the previous release left it: every migration before this feature's.
    const signing = migrations.findIndex((m) => m.name === 'SubscriptionSigningSecrets1764400100000');
    const empty = await createEmptyDatabase('upgrade');
    dropDatabase = empty.drop;
    await runMigrations(empty.ds);
    await undoMigrationsAfter(empty.ds, migrations[signing - 1].name);
    const tenant = uniq('legacy');
    const hook = await Receiver.start(testCa().server, { status: 200 });
    receivers.push(hook);
    const rows: Array<{ id: number }> = await empty.ds.query(
      `INSERT INTO subscriptions (tenant, name, url, events)
       SELECT $1, 'legacy-' || n, $2, ARRAY['LICENCE_CREATED_SUCCESS']::varchar(64)[]
       FROM generate_series(1, 3) n RETURNING id`,
      [tenant, hook.url()],
    );
    await empty.ds.destroy();

    t = await startDispatcherApp({}, { databaseUrl: empty.url });
    const filled = await t.dataSource.query(
      'SELECT id FROM subscriptions WHERE id = ANY ($1) AND signing_secret_encrypted IS NOT NULL',
      [rows.map((r) => r.id)],
    );
    expect(filled).toHaveLength(3);

    const admin = await t.createUser({ admin: true });
    const keys: string[] = [];
    for (const { id } of rows) {
      const key = (await t.http().get(`${PATH}/${id}/secret`).set(bearer(admin)).expect(200)).body.key;
      expect(key).toMatch(KEY);
      keys.push(key);
    }
    expect(new Set(keys).size).toBe(3);
    await t
      .http()
      .post('/admin/licence-events')
      .set(bearer(admin))
      .send({ eventType: WebhookEvent.LICENCE_CREATED_SUCCESS, tenant, licence: licence() })
      .expect(202);
    const copies = await hook.waitFor(3);
    // Each copy verifies with exactly one of the three secrets.
    for (const copy of copies) {
      const matching = keys.filter((key) => {
        try {
          verify(key, copy);
          return true;
        } catch {
          return false;
        }
      });
      expect(matching).toHaveLength(1);
    }
    expect(new Set(copies.map((c) => c.headers['webhook-id'])).size).toBe(1);
  });
});
