import type { AdmissionKey, SkippedOwners } from './admission-policy';

/** Where the worker's jobs are, read when a claim is considered (no copy is made per delivery). */
export interface WorkerHoldings {
  /** Deliveries running here (InFlightDeliveries). */
  inFlight: { readonly size: number };
  /** Jobs claimed ahead, waiting here for a slot (ClaimedJobsQueue). */
  queue: { readonly length: number };
  /** The most jobs one tenant may still take here (AdmissionPolicy). */
  policy: { tenantRoom(): number };
}

export interface ClaimScheduleSizes {
  /** Delivery slots (WEBHOOK_CONCURRENCY). */
  concurrency: number;
  /** Jobs leased here at once, in flight or claimed ahead. */
  capacity: number;
  /** In-flight cap of one subscription (AdmissionPolicy.subscriptionLimit). */
  subscriptionLimit: number;
  /** Most jobs taken by one claim query. */
  maxBatch: number;
}

/** What one claim asked for and got. */
export interface ClaimOutcome {
  wanted: number;
  taken: number;
  /** Due jobs the claim's window saw, taken or not (WebhookJobsRepository.claimDue). */
  candidates: number;
  /** Owners the claim skipped at their cap (skippedOwners), if any. */
  skipped: SkippedOwners | undefined;
}

/** Whose finished delivery may give room to the skipped owners. */
function givesRoom(skipped: SkippedOwners, finished: AdmissionKey): boolean {
  // A tenant's room follows every delivery here (its fair share borrows idle slots): any will do.
  if (skipped.tenants.length > 0) return true;
  return skipped.subscriptions.includes(finished.subscriptionId) || skipped.hosts.includes(finished.host);
}

/**
 * When the worker claims and how many jobs (contract section 6). Pure: no I/O and no timers; the
 * worker tells it what happened and asks it what to do.
 * - Room: capacity less the jobs in flight and queued; none while that is below one subscription's
 *   cap (a claim that small is not worth its query), unless slots are idle and nothing is queued.
 * - Fresh: jobs may have been published or handed back since the last claim began. Without news a
 *   claim can only serve the tenants here, so it takes at most their room, and none when every
 *   tenant here is within one subscription's cap of its limit.
 * - Another claim follows a claim that filled its batch or left due jobs in its window; otherwise a
 *   finished delivery claims again only if it may have given room to an owner the claim skipped at
 *   its cap (its jobs wait for that room: the delivery was the owner's own, or any for a tenant), or
 *   if there was no room to claim at all. A delivery that finishes while a claim runs is weighed
 *   when that claim ends, against what it found.
 */
export class ClaimSchedule {
  /** Another claim is wanted once the running one ends. */
  private claimWanted = false;
  /** Due jobs may be waiting that the last claim did not take (batch full, or news since). */
  private backlog = true;
  /** Or only jobs of the owners the last claim skipped at their cap, waiting for their room. */
  private skipped: SkippedOwners | undefined;
  /** Jobs may have been published or handed back since the last claim began. */
  private fresh = true;
  /** A claim runs: between beginClaim (with room) and claimEnded or claimFailed. */
  private claiming = false;
  /** The deliveries that finished while it ran, weighed when it ends. */
  private finishedWhileClaiming: AdmissionKey[] = [];
  private readonly inFlight: WorkerHoldings['inFlight'];
  private readonly queue: WorkerHoldings['queue'];
  private readonly policy: WorkerHoldings['policy'];

  constructor(
    private readonly sizes: ClaimScheduleSizes,
    { inFlight, queue, policy }: WorkerHoldings,
  ) {
    this.inFlight = inFlight;
    this.queue = queue;
    this.policy = policy;
  }

  /** Whether a claim was asked for and not yet begun. */
  get wantsClaim(): boolean {
    return this.claimWanted;
  }

  /** Jobs were published or handed back: a claim is wanted, and may look beyond the tenants here. */
  jobsArrived(): void {
    this.fresh = true;
    this.claimWanted = true;
  }

  /** Due jobs may be waiting (a NOTIFY, the sweep, jobs handed back): finished deliveries claim too. */
  jobsMayWait(): void {
    this.backlog = true;
  }

  /** A claim is wanted (it runs once the running one ends, or the pause after a failure). */
  requestClaim(): void {
    this.claimWanted = true;
  }

  /** A delivery (of `finished`) ended: whether its slot should go to a claim. */
  claimsAfterDelivery(finished: AdmissionKey): boolean {
    if (this.claiming) {
      // The running claim sees every due job: only what it leaves tells whether this slot claims.
      this.finishedWhileClaiming.push(finished);
      return false;
    }
    const waiting = this.backlog || (this.skipped !== undefined && givesRoom(this.skipped, finished));
    return waiting && this.roomToClaim() > 0;
  }

  /** A claim loop ended: whether another should run at once. */
  claimsAgain(): boolean {
    return this.claimWanted && this.roomToClaim() > 0;
  }

  /**
   * Begins the next claim: how many jobs it may take, or 0 when there is no room (a finishing
   * delivery claims again). The claim sees everything committed so far: nothing is fresh after it.
   */
  beginClaim(): number {
    this.claimWanted = false;
    const room = this.roomToClaim();
    if (room === 0) {
      this.backlog = true; // a finished delivery makes room: then it claims
      return 0;
    }
    // Without news only the tenants here can gain: a bigger window would lock rows it cannot take.
    const wanted = Math.min(room, this.sizes.maxBatch, this.fresh ? room : this.policy.tenantRoom());
    this.fresh = false;
    this.claiming = true;
    return wanted;
  }

  /** A claim ended: an owner ran out of room within its window, or it took every due job in reach. */
  claimEnded({ wanted, taken, candidates, skipped }: ClaimOutcome): void {
    // Some owner ran out of room within the window: claim again, skipping it, to reach the others.
    const more = taken === wanted || candidates > taken;
    // Else only owners it skipped (at their cap) may have jobs waiting, for their room. New jobs wake
    // the worker; expired leases, the sweep.
    this.backlog = more;
    this.skipped = more ? undefined : skipped;
    const finished = this.endClaim();
    if (more || (skipped && finished.some((key) => givesRoom(skipped, key)))) this.claimWanted = true;
  }

  /** A claim failed (the worker pauses, then claims again): due jobs may wait. */
  claimFailed(): void {
    this.backlog = true;
    this.endClaim();
  }

  /**
   * Room for the jobs a publish leases as it writes them (WebhookWorker.leaseForPublish): what a
   * claim right after its commit could take, and none while due jobs may be waiting for a claim
   * (older jobs, or owners at their cap: theirs come first).
   */
  roomForPublish(): number {
    if (this.backlog || this.skipped) return 0;
    return Math.max(0, this.sizes.capacity - this.inFlight.size - this.queue.length);
  }

  /** The deliveries that finished while the claim ran. */
  private endClaim(): AdmissionKey[] {
    const finished = this.finishedWhileClaiming;
    this.claiming = false;
    this.finishedWhileClaiming = [];
    return finished;
  }

  /** How many more jobs a claim may take now: 0 while the room is too small to be worth a claim. */
  private roomToClaim(): number {
    const { capacity, concurrency, subscriptionLimit } = this.sizes;
    const inFlight = this.inFlight.size;
    const queued = this.queue.length;
    const room = capacity - inFlight - queued;
    const idleSlots = inFlight < concurrency && queued === 0;
    if (room < subscriptionLimit && !(idleSlots && room > 0)) return 0;
    // Every tenant here at its cap, and nothing new: a claim could only look for others' jobs in vain.
    return this.fresh || this.policy.tenantRoom() >= subscriptionLimit ? room : 0;
  }
}
