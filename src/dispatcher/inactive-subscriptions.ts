import { DeliveryStatus, DeliveryTrigger } from '../common/reference/enums';
import type { DeliveryOutcome } from './delivery-client';
import type { ClaimedJob } from './webhook-jobs.repository';

/**
 * The record of a job not sent because its subscription is inactive (contract section 11): jobs
 * queued before a 410 or a deactivation are recorded so, never sent.
 */
export const inactiveOutcome = (): DeliveryOutcome => ({
  status: DeliveryStatus.FAILED,
  httpStatusCode: null,
  errorMessage: 'subscription inactive',
  sentAt: new Date(),
  durationMs: null,
  responseBody: null,
});

/** Whether a claimed job must not be sent: its subscription is inactive, and it is no test event (contract section 9: those go active or not). */
export const refusedWhenInactive = (job: ClaimedJob): boolean => job.trigger !== DeliveryTrigger.TEST;

/**
 * Subscriptions whose receiver answered 410 here, whose deactivation a claim may not see yet: the
 * completion statement writes it a few milliseconds later, and a claim that read the subscription
 * before then still finds it active. Each is kept with the job id of its 410 until a claim begins
 * after that record is written (`unrecorded` says it is not); from then on the database says.
 */
export class GoneReceivers {
  private readonly answered = new Map<number, string>();

  constructor(private readonly unrecorded: (jobId: string) => boolean) {}

  /** `job`'s receiver answered 410. */
  add(job: ClaimedJob): void {
    this.answered.set(job.subscriptionId, job.id);
  }

  /** A claimed job of a subscription gone here, or found inactive by the claim: recorded, not sent. */
  refuses(job: ClaimedJob): boolean {
    return refusedWhenInactive(job) && (!job.active || this.answered.has(job.subscriptionId));
  }

  /** At a claim's start: the 410s recorded, so the claim reads their subscriptions deactivated. */
  recorded(): Array<[number, string]> {
    return [...this.answered].filter(([, jobId]) => !this.unrecorded(jobId));
  }

  /** After that claim, `recorded()` of its start: the database says from now on (unless another 410 came). */
  forget(recorded: Array<[number, string]>): void {
    for (const [id, jobId] of recorded) if (this.answered.get(id) === jobId) this.answered.delete(id);
  }
}
