import type { AdmissionPolicy } from './admission-policy';
import type { ClaimedJob } from './webhook-jobs.repository';

/** A claimed job waiting for a slot, until `sendBy` (performance.now()). */
interface QueuedJob extends ClaimedJob {
  sendBy: number;
}

/**
 * Splits waiting jobs into those kept and those `gone` picks, giving the dropped ones' places in the
 * policy's counts back (they were counted as started when claimed): the queue's and PacedJobs' drop.
 */
export function releaseWhere<T extends ClaimedJob>(
  jobs: T[],
  gone: (job: ClaimedJob) => boolean,
  policy: AdmissionPolicy,
): { kept: T[]; dropped: T[] } {
  const kept: T[] = [];
  const dropped: T[] = [];
  for (const job of jobs) {
    if (gone(job)) {
      policy.released(job);
      dropped.push(job);
    } else kept.push(job);
  }
  return { kept, dropped };
}

/**
 * Jobs claimed ahead of free slots, oldest first. Every job in here is held in the policy's counts
 * (AdmissionPolicy.held) until it starts or leaves unsent.
 */
export class ClaimedJobsQueue {
  /**
   * A claimed job waits here at most this long for a slot. One that waited longer is released
   * unsent (its subscription is slower than its share of the slots) and that subscription is not
   * claimed ahead for a while. Far below the lease margin (at least 2 s), so a job never starts
   * late in its lease; and a subscription deleted meanwhile gets at most this much of a tail.
   */
  static readonly MAX_WAIT_MS = 500;
  private jobs: QueuedJob[] = [];

  constructor(private readonly policy: AdmissionPolicy) {}

  get length(): number {
    return this.jobs.length;
  }

  push(jobs: ClaimedJob[], sendBy: number): void {
    for (const job of jobs) {
      this.jobs.push({ ...job, sendBy });
      this.policy.held(job);
    }
  }

  /**
   * Takes out, oldest first, the jobs the policy admits now (marking them started is the caller's
   * part) and those past their `sendBy` (released from the policy, and noted as a slow queue); a
   * job whose owner has no room does not hold back the others.
   */
  take(monotonicNow: number, now: number): { start: ClaimedJob[]; expired: ClaimedJob[] } {
    const start: ClaimedJob[] = [];
    const expired: ClaimedJob[] = [];
    const kept: QueuedJob[] = [];
    let i = 0;
    for (; i < this.jobs.length; i++) {
      const job = this.jobs[i];
      if (job.sendBy < monotonicNow) {
        expired.push(job);
        this.policy.released(job);
        this.policy.noteSlowQueue(job, now);
      } else if (this.policy.inFlight >= this.policy.concurrency) {
        break; // no slot left, and `sendBy` only grows from here: nothing more to start or expire
      } else if (this.policy.mayStart(job, now)) {
        start.push(job);
        this.policy.started(job); // counted at once, so the next job of this loop sees it
      } else {
        kept.push(job);
      }
    }
    if (start.length > 0 || expired.length > 0)
      this.jobs = i === this.jobs.length ? kept : kept.concat(this.jobs.slice(i));
    return { start, expired };
  }

  subscriptionIds(): number[] {
    return [...new Set(this.jobs.map((job) => job.subscriptionId))];
  }

  /** Takes out, unsent, the jobs `gone` picks, and returns them. */
  dropWhere(gone: (job: ClaimedJob) => boolean): ClaimedJob[] {
    const { kept, dropped } = releaseWhere(this.jobs, gone, this.policy);
    this.jobs = kept;
    return dropped;
  }
}
