import { DeliveryTrigger, WebhookEvent } from '../common/reference/enums';
import { GoneReceivers, refusedWhenInactive } from './inactive-subscriptions';
import type { ClaimedJob } from './webhook-jobs.repository';

const job = (id: string, subscriptionId: number, changes: Partial<ClaimedJob> = {}): ClaimedJob => ({
  id,
  eventId: id,
  subscriptionId,
  eventType: WebhookEvent.LICENCE_CREATED_SUCCESS,
  tenant: 'acme',
  payload: '{}',
  url: 'https://receiver.example/hook',
  headerName: null,
  headerValueEncrypted: null,
  traceContext: null,
  startInMs: null,
  nextSlotInMs: null,
  signingSecretEncrypted: null,
  previousSigningSecretEncrypted: null,
  host: 'receiver.example',
  publishedAt: new Date(),
  trigger: DeliveryTrigger.EVENT,
  active: true,
  ...changes,
});

describe('GoneReceivers', () => {
  const unrecorded = new Set<string>();
  let gone: GoneReceivers;
  beforeEach(() => {
    unrecorded.clear();
    gone = new GoneReceivers((jobId) => unrecorded.has(jobId));
  });

  it('refuses jobs of an inactive subscription, except test events', () => {
    expect(gone.refuses(job('1', 1, { active: false }))).toBe(true);
    expect(gone.refuses(job('2', 1, { active: false, trigger: DeliveryTrigger.RESEND }))).toBe(true);
    expect(gone.refuses(job('3', 1, { active: false, trigger: DeliveryTrigger.TEST }))).toBe(false);
    expect(gone.refuses(job('4', 1))).toBe(false);
    expect(refusedWhenInactive(job('5', 1, { trigger: DeliveryTrigger.RECOVER }))).toBe(true);
  });

  it("refuses a 410'd subscription's jobs that a claim still read active, until a claim begins after its record", () => {
    unrecorded.add('gone-1');
    gone.add(job('gone-1', 7));
    // A claim running while the 410's record waits: its jobs read active, and are refused.
    const before = gone.recorded();
    expect(before).toEqual([]);
    expect(gone.refuses(job('8', 7))).toBe(true);
    expect(gone.refuses(job('9', 8))).toBe(false);
    unrecorded.delete('gone-1'); // written
    gone.forget(before);
    expect(gone.refuses(job('10', 7))).toBe(true); // that claim may have read before the write
    // The next claim begins after the write: from then on the claim's own `active` says.
    const next = gone.recorded();
    expect(next).toEqual([[7, 'gone-1']]);
    expect(gone.refuses(job('11', 7))).toBe(true);
    gone.forget(next);
    expect(gone.refuses(job('12', 7))).toBe(false); // re-enabled since: sent
    expect(gone.refuses(job('13', 7, { active: false }))).toBe(true);
  });

  it('keeps a later 410 of the same subscription past the forgetting of an earlier one', () => {
    gone.add(job('gone-1', 7));
    const recorded = gone.recorded();
    unrecorded.add('gone-2');
    gone.add(job('gone-2', 7));
    gone.forget(recorded);
    expect(gone.refuses(job('14', 7))).toBe(true);
  });
});
