import type { AdmissionPolicy } from './admission-policy';
import { releaseWhere } from './claimed-jobs.queue';
import { SLOT_HORIZON_MS, START_TOLERANCE_MS } from './delivery-pacing';
import type { ClaimedJob } from './webhook-jobs.repository';

/** A rate-limited subscription's job, waiting for its slot (performance.now()). */
interface PacedJob extends ClaimedJob {
  startAt: number;
}

/**
 * Jobs of rate-limited subscriptions (contract section 11), claimed with a start slot each: they
 * start at their slot, never behind the claimed-ahead queue, and one the policy cannot admit within
 * START_TOLERANCE_MS of its slot is handed back unsent (its slot is lost: the limit errs on the
 * low side). Like the queue's jobs they are held in the policy's counts until they start or leave.
 * Pure: callers pass the clock.
 */
export class PacedJobs {
  private jobs: PacedJob[] = [];
  /** When each subscription claimed here gets its next slot, so the worker claims again then. */
  private readonly nextSlots = new Map<number, number>();

  constructor(private readonly policy: AdmissionPolicy) {}

  get length(): number {
    return this.jobs.length;
  }

  /** Nothing paced here and no next slots awaited: the worker keeps no timer for it. */
  get idle(): boolean {
    return this.jobs.length === 0 && this.nextSlots.size === 0;
  }

  /** Jobs of one claim, answered at `monotonicNow`; their start and next-slot times are relative to it. */
  push(jobs: ClaimedJob[], monotonicNow: number): void {
    for (const job of jobs) {
      this.jobs.push({ ...job, startAt: monotonicNow + (job.startInMs ?? 0) });
      this.policy.held(job);
      if (job.nextSlotInMs !== null) this.nextSlots.set(job.subscriptionId, monotonicNow + job.nextSlotInMs);
    }
    this.jobs.sort((a, b) => a.startAt - b.startAt);
  }

  /** Takes out the jobs whose slot has come and that the policy admits, and those too late to start. */
  take(
    monotonicNow: number,
    now: number,
  ): { start: Array<ClaimedJob & { startBy: number }>; late: ClaimedJob[] } {
    const start: Array<ClaimedJob & { startBy: number }> = [];
    const late: ClaimedJob[] = [];
    const kept: PacedJob[] = [];
    for (const job of this.jobs) {
      if (job.startAt > monotonicNow) kept.push(job);
      else if (monotonicNow - job.startAt > START_TOLERANCE_MS) {
        late.push(job);
        this.policy.released(job);
      } else if (this.policy.mayStart(job, now)) {
        // The delivery thread sends it only by then (its own backlog could hold it past the slot).
        start.push({ ...job, startBy: now + job.startAt + START_TOLERANCE_MS - monotonicNow });
        this.policy.started(job);
      } else kept.push(job);
    }
    if (start.length > 0 || late.length > 0) this.jobs = kept;
    return { start, late };
  }

  /**
   * When something is next to do here: a slot coming, a waiting job's tolerance running out, or a
   * subscription's next slots entering the claim's horizon. Undefined: nothing paced.
   */
  nextWake(monotonicNow: number): number | undefined {
    let at = Infinity;
    for (const job of this.jobs)
      at = Math.min(at, job.startAt > monotonicNow ? job.startAt : job.startAt + START_TOLERANCE_MS + 1);
    for (const nextSlot of this.nextSlots.values()) at = Math.min(at, nextSlot - SLOT_HORIZON_MS + 1);
    return at === Infinity ? undefined : Math.max(at, monotonicNow);
  }

  /** Whether some subscription's next slots entered the claim's horizon (forgotten then): claim. */
  slotsOpened(monotonicNow: number): boolean {
    let opened = false;
    for (const [id, nextSlot] of this.nextSlots)
      if (nextSlot - SLOT_HORIZON_MS < monotonicNow) {
        this.nextSlots.delete(id);
        opened = true;
      }
    return opened;
  }

  subscriptionIds(): number[] {
    return [...new Set(this.jobs.map((job) => job.subscriptionId))];
  }

  /** Drops, unsent, the jobs `gone` picks. */
  dropWhere(gone: (job: ClaimedJob) => boolean): ClaimedJob[] {
    const { kept, dropped } = releaseWhere(this.jobs, gone, this.policy);
    this.jobs = kept;
    return dropped;
  }
}
