import { WebhookEvent } from '../src/common/reference/enums';
import { LicenceCreatedSuccessEvent } from '../src/licence-events/licence-created-success.event';
import { LicenceEventPublisher } from '../src/dispatcher/licence-event.publisher';
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

describe('Dispatcher: SSRF guard (WEBHOOK_ALLOW_PRIVATE_NETWORKS=false)', () => {
  let t: TestApp;
  let hook: Receiver;

  beforeAll(async () => {
    t = await startDispatcherApp({ WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'false' });
    hook = await Receiver.start(testCa().server, { status: 200 });
  });
  afterAll(async () => {
    await hook?.close();
    await t?.close();
  });

  it('fails, without sending, a delivery whose host resolves at connect time to a loopback address', async () => {
    const tenant = uniq('tenant');
    // `localhost` passes any URL check made on the text; the guard sees the address it resolves to.
    const byName = await createSubscription(t, { tenant, url: hook.url('/by-name', 'localhost') });
    // A literal address, as if it had been stored before the API refused them.
    const literal = await createSubscription(t, { tenant, url: hook.url('/literal') });
    const receipt = await t.app
      .get(LicenceEventPublisher)
      .emit(
        WebhookEvent.LICENCE_CREATED_SUCCESS,
        new LicenceCreatedSuccessEvent({ tenant, licence: licence() }),
      );
    expect(receipt.matchedSubscriptions).toBe(2);

    const [nameRecord] = await waitForDeliveries(t.dataSource, byName.id, 1);
    expect(nameRecord).toMatchObject({ status: 'FAILED', httpStatusCode: null });
    // Contract section 8: the address the name resolved to is never told to the partner.
    expect(nameRecord.errorMessage).toBe('destination address is not public');
    const [literalRecord] = await waitForDeliveries(t.dataSource, literal.id, 1);
    expect(literalRecord).toMatchObject({
      status: 'FAILED',
      httpStatusCode: null,
      errorMessage: 'destination address is not public',
    });
    // Nor through the API: the delivery records a partner reads name no resolved address.
    const { token } = await t.createUser({ tenant });
    const listed = await t
      .http()
      .get(`/webhooks/subscriptions/${byName.id}/deliveries`)
      .set('Authorization', `Bearer ${token}`)
      .expect(200);
    expect(JSON.stringify(listed.body)).toContain('destination address is not public');
    // Nothing was sent: no duration and no answer (contract section 9).
    expect(listed.body.content).toEqual([
      expect.objectContaining({ trigger: 'EVENT', durationMs: null, responseBody: null }),
    ]);
    expect(JSON.stringify(listed.body)).not.toMatch(/127\.0\.0\.1|::1\b/);
    await sleep(300);
    expect(hook.receipts).toHaveLength(0);
  });
});
