import { WebhookEvent } from '../src/common/reference/enums';
import { LicenceCreatedSuccessEvent } from '../src/licence-events/licence-created-success.event';
import { LicenceEventPublisher } from '../src/dispatcher/licence-event.publisher';
import { licence, startDispatcherApp, waitForDeliveries } from './support/dispatcher';
import { Receiver } from './support/receiver';
import { testCa } from './support/test-ca';
import type { TestApp, TestUser } from './support/test-app';

const PATH = '/webhooks/subscriptions';

describe('Secrets at rest: each sealed value is bound to its row and column', () => {
  let t: TestApp;
  let partner: TestUser;
  let hookX: Receiver;
  let hookY: Receiver;

  beforeAll(async () => {
    t = await startDispatcherApp();
    partner = await t.createUser();
    hookX = await Receiver.start(testCa().server, { status: 200 });
    hookY = await Receiver.start(testCa().server, { status: 200 });
  });
  afterAll(async () => {
    await t?.close();
    await hookX?.close();
    await hookY?.close();
  });

  const subscribe = async (url: string, headerValue: string): Promise<number> => {
    const res = await t
      .http()
      .post(PATH)
      .set('Authorization', `Bearer ${partner.token}`)
      .send({
        name: `sealed-${headerValue}`,
        url,
        events: ['LICENCE_CREATED_SUCCESS'],
        headerName: 'X-Key',
        headerValue,
      })
      .expect(200);
    return res.body.id as number;
  };
  const secretOf = (id: number) =>
    t.http().get(`${PATH}/${id}/secret`).set('Authorization', `Bearer ${partner.token}`);

  it("a header value and signing secret copied from X to Y: Y's delivery FAILED unsent, X's sent, Y's secret a 409", async () => {
    const x = await subscribe(hookX.url('/x'), 'key-of-x');
    const y = await subscribe(hookY.url('/y'), 'key-of-y');
    const keyX = (await secretOf(x).expect(200)).body.key as string;
    await t.dataSource.query(
      `UPDATE subscriptions y SET header_value_encrypted = x.header_value_encrypted,
         signing_secret_encrypted = x.signing_secret_encrypted
       FROM subscriptions x WHERE x.id = $1 AND y.id = $2`,
      [x, y],
    );
    await t.app
      .get(LicenceEventPublisher)
      .emit(
        WebhookEvent.LICENCE_CREATED_SUCCESS,
        new LicenceCreatedSuccessEvent({ tenant: partner.tenant, licence: licence() }),
      );
    const [recordY] = await waitForDeliveries(t.dataSource, y, 1);
    expect(recordY).toMatchObject({
      status: 'FAILED',
      httpStatusCode: null,
      errorMessage: 'subscription secret unreadable',
    });
    const [recordX] = await waitForDeliveries(t.dataSource, x, 1);
    expect(recordX).toMatchObject({ status: 'SUCCESS', httpStatusCode: 200 });
    expect(hookX.receipts).toHaveLength(1);
    expect(hookX.receipts[0].headers['x-key']).toBe('key-of-x');
    expect(hookY.receipts).toHaveLength(0);

    const refused = await secretOf(y).expect(409);
    expect(refused.body).toMatchObject({ status: 409, message: expect.stringContaining('unreadable') });
    expect(JSON.stringify(refused.body)).not.toContain(keyX);
    await expect(
      secretOf(x)
        .expect(200)
        .then((r) => r.body.key),
    ).resolves.toBe(keyX);
    // A rotation replaces the unreadable secret (and does not carry it over as the previous one).
    const rotated = await t
      .http()
      .post(`${PATH}/${y}/secret/rotate`)
      .set('Authorization', `Bearer ${partner.token}`)
      .expect(200);
    await expect(
      secretOf(y)
        .expect(200)
        .then((r) => r.body.key),
    ).resolves.toBe(rotated.body.key);
    const [row] = await t.dataSource.query(
      'SELECT previous_signing_secret_encrypted AS previous FROM subscriptions WHERE id = $1',
      [y],
    );
    expect(row.previous).toBeNull();
  });
});
