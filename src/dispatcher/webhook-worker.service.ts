import { randomUUID } from 'node:crypto';
import { hostname } from 'node:os';
import { Injectable, Logger, OnApplicationBootstrap, OnModuleDestroy } from '@nestjs/common';
import { ConfigService } from '@nestjs/config';
import type { AppConfig } from '../config/configuration';
import { outsideTraces } from '../tracing/tracer';
import { MetricsService } from '../metrics/metrics.service';
import { AdmissionPolicy, roomFor, skippedOwners } from './admission-policy';
import { ClaimSchedule } from './claim-schedule';
import { ClaimedJobsQueue } from './claimed-jobs.queue';
import { CompletionWriter } from './completion-writer';
import { InFlightDeliveries } from './in-flight-deliveries';
import { GoneReceivers, refusedWhenInactive } from './inactive-subscriptions';
import { NotificationListener } from './notification-listener';
import { PacedJobs } from './paced-jobs';
import { UnsentJobs } from './unsent-jobs';
import type { PublishLease } from './webhook-events.repository';
import { WebhookJobsRepository } from './webhook-jobs.repository';
import type { ClaimedJob } from './webhook-jobs.repository';
import { WebhookSender } from './webhook-sender.service';
import { WorkerSettings, workerSettings } from './worker-settings';

/** Most jobs taken by one claim query. */
const MAX_CLAIM_BATCH = 100;
/** After a failed claim (the database unreachable), the next is tried this much later. */
const CLAIM_RETRY_DELAY_MS = 1000;
/** A subscription whose claimed-ahead jobs waited too long gets none claimed ahead for this long. */
const NO_PREFETCH_FOR_MS = 60_000;

/**
 * STARTING: built, not bootstrapped. WAITING: nothing to do until a NOTIFY, a finished delivery or
 * the sweep. CLAIMING: a claim loop runs (never two at once). LEASING: a publish writes jobs leased
 * to this instance (leaseForPublish); a claim asked for meanwhile runs once it ends. PAUSED: a claim
 * failed; the next one runs after CLAIM_RETRY_DELAY_MS, not before. DRAINING: shutting down.
 * STOPPED: done.
 */
export type WorkerState = 'STARTING' | 'WAITING' | 'CLAIMING' | 'LEASING' | 'PAUSED' | 'DRAINING' | 'STOPPED';

/**
 * Delivers pending jobs (contract section 6). Claims (WebhookJobsRepository) run when a job is
 * published (NotificationListener, or the publisher on this instance), when room frees while work
 * may be waiting, and on a periodic sweep that also takes jobs whose lease ran out; when exactly,
 * and how many jobs each takes, is ClaimSchedule's call. A publish on this instance that finds it
 * idle takes the place of the claim after it: its statement leases the jobs here (leaseForPublish).
 * Claims run ahead of the free slots: up to as many jobs again wait in a local queue
 * (ClaimedJobsQueue), so a slot that frees starts the next delivery at once. Who may start is AdmissionPolicy's call (per subscription, host and tenant);
 * outcomes go to CompletionWriter; jobs it will not send go back or away through UnsentJobs.
 */
@Injectable()
export class WebhookWorker implements OnApplicationBootstrap, OnModuleDestroy {
  private readonly logger = new Logger('WebhookWorker');
  private readonly instanceId = `${hostname().slice(0, 40)}:${process.pid}:${randomUUID().slice(0, 8)}`;
  private state: WorkerState = 'STARTING';
  private readonly settings: WorkerSettings;
  private readonly policy: AdmissionPolicy;
  private readonly queue: ClaimedJobsQueue;
  /** Rate-limited subscriptions' jobs, each waiting for its start slot (contract section 11). */
  private readonly paced: PacedJobs;
  private readonly inFlight: InFlightDeliveries;
  private readonly unsent: UnsentJobs;
  private readonly schedule: ClaimSchedule;
  private readonly gone: GoneReceivers;
  /** Counts subscriptions-gone notifications, so a claim that raced one checks its jobs too. */
  private goneEpoch = 0;
  private claimFailures = 0;
  /** The publish leasing jobs to this instance (leaseForPublish), while it runs (LEASING). */
  private publishing:
    | { lease: PublishLease; sendBy: number; goneEpoch: number; done: Promise<void>; ended: () => void }
    | undefined;
  private claiming: Promise<void> | undefined;
  private sweepTimer: NodeJS.Timeout | undefined;
  private retryTimer: NodeJS.Timeout | undefined;
  private paceTimer: NodeJS.Timeout | undefined;

  constructor(
    private readonly jobs: WebhookJobsRepository,
    private readonly sender: WebhookSender,
    completions: CompletionWriter,
    private readonly notifications: NotificationListener,
    config: ConfigService<AppConfig, true>,
    metrics: MetricsService,
  ) {
    this.settings = workerSettings(config);
    const { concurrency, unresponsiveForMs } = this.settings;
    this.policy = new AdmissionPolicy(concurrency, unresponsiveForMs, NO_PREFETCH_FOR_MS);
    this.queue = new ClaimedJobsQueue(this.policy);
    this.inFlight = new InFlightDeliveries(sender, completions, this.policy, metrics, this.receiverGone);
    this.gone = new GoneReceivers((jobId) => completions.has(jobId));
    this.paced = new PacedJobs(this.policy);
    // Jobs claimed here and waiting, queued or paced, and those a publish is leasing here: what the
    // schedule counts as taken room.
    const held = () => this.queue.length + this.paced.length + (this.publishing?.lease.most ?? 0);
    const waiting = {
      get length(): number {
        return held();
      },
    };
    this.unsent = new UnsentJobs(jobs, this.instanceId);
    this.schedule = new ClaimSchedule(
      {
        concurrency,
        capacity: this.settings.capacity,
        subscriptionLimit: this.policy.subscriptionLimit,
        maxBatch: MAX_CLAIM_BATCH,
      },
      { inFlight: this.inFlight, queue: waiting, policy: this.policy },
    );
  }

  async onApplicationBootstrap(): Promise<void> {
    this.enter('WAITING', ['STARTING']);
    this.sweepTimer = setInterval(() => {
      this.startQueuedJobs(); // also hands back queued jobs that waited too long
      this.claimForWaitingJobs();
    }, this.settings.sweepMs);
    this.sweepTimer.unref();
    await this.notifications.start({
      jobsWaiting: () => this.claimForWaitingJobs(),
      subscriptionsGone: () => {
        this.goneEpoch++;
        void this.dropGone();
      },
    });
    this.wake(); // jobs left by an earlier run, released at shutdown or whose lease ran out
  }

  /** Jobs were published or handed back: claim soon. */
  wake(): void {
    this.schedule.jobsArrived();
    this.claimSoon();
  }

  /**
   * A publish without a caller transaction is about to write its jobs: those this instance would
   * claim right after the commit are leased to it as they are written instead (no claim between
   * the commit and their start; contract section 6's lease, attempts counted as a claim counts
   * them). Only from WAITING (no claim running, nor another leasing publish: claims and leases never
   * overlap, so each sees what the other took) while nothing waits for a claim, within the room a
   * claim would have and the tenant's room; rate-limited subscriptions' jobs and those of owners at
   * their cap are left for a claim (WebhookEventsRepository.insertLeasing). Undefined: write them all
   * unleased. The publish must end with publishEnded, whatever its outcome.
   */
  leaseForPublish(tenant: string): PublishLease | undefined {
    if (this.state !== 'WAITING') return undefined;
    const limits = this.policy.claimLimits(Date.now());
    const most = Math.min(this.schedule.roomForPublish(), roomFor(limits.tenants, tenant));
    if (most <= 0) return undefined;
    const lease = {
      instanceId: this.instanceId,
      leaseMs: this.settings.leaseMs,
      most,
      skipSubscriptions: limits.subscriptions.saturated,
      skipHosts: limits.hosts.saturated,
    };
    this.enter('LEASING', ['WAITING']);
    let ended = () => {};
    const done = new Promise<void>((resolve) => (ended = resolve));
    // Before the lease is taken, as for a claim: the local deadline is never later than it allows.
    const sendBy = performance.now() + ClaimedJobsQueue.MAX_WAIT_MS;
    this.publishing = { lease, sendBy, goneEpoch: this.goneEpoch, done, ended };
    return lease;
  }

  /**
   * The publish of `lease` ended: `leased` (none when it failed) wait for their slots as claimed
   * jobs do, and one claim runs for those it committed unleased (`unleased`) and for any asked for
   * meanwhile. Shutting down, the drain releases them with every other job leased here.
   */
  publishEnded(lease: PublishLease, leased: ClaimedJob[], unleased: boolean): void {
    const publishing = this.publishing;
    if (publishing?.lease !== lease) return;
    this.publishing = undefined;
    publishing.ended();
    if (this.state !== 'LEASING') return; // DRAINING
    this.enter('WAITING', ['LEASING']);
    // The publish's own work ends here: the deliveries are not part of its trace (as in claimSoon).
    outsideTraces(() => {
      this.queueClaimed(leased, publishing.sendBy);
      // A subscription went or was deactivated meanwhile: settle its jobs, as after a claim.
      if (this.goneEpoch !== publishing.goneEpoch && leased.length > 0) void this.dropGone();
      this.startQueuedJobs();
    });
    if (unleased) this.schedule.jobsArrived();
    if (this.schedule.claimsAgain()) this.claimSoon();
  }

  /** Due jobs may be waiting (a NOTIFY, the sweep, jobs handed back): claim soon, and as slots free. */
  private claimForWaitingJobs(): void {
    this.schedule.jobsMayWait();
    this.wake();
  }

  /** Asks for a claim soon; claims never overlap within an instance, nor run while PAUSED. */
  private claimSoon(): void {
    this.schedule.requestClaim();
    if (this.state !== 'WAITING') return;
    this.enter('CLAIMING', ['WAITING']);
    // Often woken by a publish: the claims and deliveries are not part of its trace.
    this.claiming = outsideTraces(() => this.claimLoop()).finally(() => {
      this.claiming = undefined;
      if (this.state === 'CLAIMING') this.enter('WAITING', ['CLAIMING']);
      if (this.schedule.claimsAgain()) this.claimSoon();
    });
  }

  private enter(to: WorkerState, from: WorkerState[]): void {
    if (!from.includes(this.state)) throw new Error(`webhook worker: ${this.state} → ${to}`);
    this.state = to;
  }

  private async claimLoop(): Promise<void> {
    while (this.schedule.wantsClaim && this.state === 'CLAIMING') {
      const wanted = this.schedule.beginClaim();
      if (wanted === 0) return;
      const epoch = this.goneEpoch;
      const goneRecorded = this.gone.recorded();
      // Measured before the lease is taken, so the local deadline is never later than the lease allows.
      const sendBy = performance.now() + ClaimedJobsQueue.MAX_WAIT_MS;
      let claimed: Awaited<ReturnType<WebhookJobsRepository['claimDue']>>;
      const limits = this.policy.claimLimits(Date.now());
      try {
        claimed = await this.jobs.claimDue({
          leaseMs: this.settings.leaseMs,
          instanceId: this.instanceId,
          limits,
          wanted,
        });
      } catch (error) {
        this.schedule.claimFailed();
        return this.pause(error);
      }
      if (this.claimFailures > 0)
        this.logger.log(`claiming webhook jobs again after ${this.claimFailures} failures`);
      this.claimFailures = 0;
      this.gone.forget(goneRecorded);
      // A job whose lease ran out while it ran here (a stalled process, records not written for that
      // long) is running or done: never sent again from this instance.
      const unseen = claimed.jobs.filter((job) => !this.inFlight.has(job.id));
      this.queueClaimed(unseen, sendBy);
      // Read before a subscription went or was deactivated meanwhile: settle its jobs before any starts.
      if (this.goneEpoch !== epoch && unseen.length > 0) await this.dropGone();
      this.startQueuedJobs();
      this.schedule.claimEnded({
        wanted,
        taken: claimed.jobs.length,
        candidates: claimed.candidates,
        skipped: skippedOwners(limits),
      });
    }
  }

  /** Claimed jobs wait for a slot, but those of an inactive subscription: recorded FAILED, never sent. */
  private queueClaimed(jobs: ClaimedJob[], sendBy: number): void {
    const refused = jobs.filter((job) => this.gone.refuses(job));
    this.refuse(refused);
    const kept = refused.length === 0 ? jobs : jobs.filter((job) => !refused.includes(job));
    // A rate-limited subscription's jobs start at their slots (PacedJobs), the others when admitted.
    this.paced.push(
      kept.filter((job) => job.startInMs !== null),
      performance.now(),
    );
    this.queue.push(
      kept.filter((job) => job.startInMs === null),
      sendBy,
    );
  }

  /** A claim failed (the database is unreachable): log once, try again after a delay, not at once. */
  private pause(error: unknown): void {
    if (this.claimFailures++ === 0)
      this.logger.error({ err: error }, 'claiming webhook jobs failed; retrying');
    if (this.state !== 'CLAIMING') return; // shutting down
    this.enter('PAUSED', ['CLAIMING']);
    this.retryTimer = setTimeout(() => {
      if (this.state !== 'PAUSED') return;
      this.enter('WAITING', ['PAUSED']);
      this.wake();
    }, CLAIM_RETRY_DELAY_MS);
  }

  /**
   * A receiver answered 410: its subscription is deactivated by that record (the completion
   * statement), so its queued jobs are refused now, before the slot goes to one of them, and so are
   * those claimed before the deactivation is seen (GoneReceivers).
   */
  private readonly receiverGone = (job: ClaimedJob) => {
    this.gone.add(job);
    const refused = (waiting: ClaimedJob) =>
      waiting.subscriptionId === job.subscriptionId && refusedWhenInactive(waiting);
    this.refuse([...this.queue.dropWhere(refused), ...this.paced.dropWhere(refused)]);
  };

  /** Jobs of an inactive subscription: recorded FAILED, never sent. */
  private readonly refuse = (jobs: ClaimedJob[]) => this.inFlight.refuse(jobs);

  /** A delivery finished (or was not sent after all): its slot goes to the next queued job, or to a claim. */
  private readonly onFinished = (job: ClaimedJob, unsent: boolean) => {
    if (unsent) void this.handBack([job]);
    this.startQueuedJobs();
    if (this.schedule.claimsAfterDelivery(job)) this.claimSoon();
  };

  /**
   * Starts the paced jobs whose slot has come, then queued jobs, oldest first, as the policy admits;
   * hands back those that waited too long (a paced job's slot is then lost, never moved).
   */
  private startQueuedJobs(): void {
    if (this.state === 'STARTING' || this.state === 'DRAINING' || this.state === 'STOPPED') return;
    if (this.paced.length > 0) {
      const paced = this.paced.take(performance.now(), Date.now());
      for (const job of paced.start) this.inFlight.start(job, this.onFinished, job.startBy);
      if (paced.late.length > 0) void this.handBack(paced.late);
    }
    const { start, expired } = this.queue.take(performance.now(), Date.now());
    for (const job of start) this.inFlight.start(job, this.onFinished);
    if (expired.length > 0) void this.handBack(expired);
    this.paceSoon();
  }

  /**
   * One timer for the paced jobs: their next slot (or tolerance running out), and the moment a
   * rate-limited subscription claimed here gets its next slots in reach of a claim (no busy loop:
   * the claim's window skips it until then).
   */
  private paceSoon(): void {
    if (this.paceTimer === undefined && this.paced.idle) return; // unlimited subscriptions only
    clearTimeout(this.paceTimer);
    this.paceTimer = undefined;
    const wake = this.paced.nextWake(performance.now());
    if (wake === undefined) return;
    this.paceTimer = setTimeout(() => {
      this.paceTimer = undefined;
      const opened = this.paced.slotsOpened(performance.now());
      this.startQueuedJobs();
      if (opened) this.claimForWaitingJobs();
    }, wake - performance.now());
    this.paceTimer.unref();
  }

  private async dropGone(): Promise<void> {
    await this.unsent.dropGone(this.queue, this.refuse);
    await this.unsent.dropGone(this.paced, this.refuse);
  }

  /** Queued jobs that waited too long go back to the outbox, and may be claimed again at once. */
  private async handBack(jobs: ClaimedJob[]): Promise<void> {
    await this.unsent.handBack(jobs);
    this.claimForWaitingJobs();
  }

  /**
   * Graceful shutdown (contract section 1): stop claiming, let in-flight deliveries finish within
   * SHUTDOWN_GRACE_MS, interrupt the rest, write every finished delivery, then release this
   * instance's unfinished jobs so another instance (or the next start) takes them at once. Runs
   * before the database pool closes (TypeORM closes it in onApplicationShutdown).
   */
  async onModuleDestroy(): Promise<void> {
    const started = this.state !== 'STARTING';
    this.enter('DRAINING', ['STARTING', 'WAITING', 'CLAIMING', 'LEASING', 'PAUSED']);
    clearInterval(this.sweepTimer);
    clearTimeout(this.retryTimer);
    clearTimeout(this.paceTimer);
    await this.notifications.stop();
    if (started) await this.drainAndRelease();
    await this.sender.close();
    this.enter('STOPPED', ['DRAINING']);
  }

  private async drainAndRelease(): Promise<void> {
    await this.claiming;
    await this.publishing?.done; // its leased jobs are released below
    const unfinished = await this.inFlight.finish(this.settings.graceMs);
    // Queued jobs were never started: the release below hands them back with the rest.
    this.queue.dropWhere(() => true);
    this.paced.dropWhere(() => true);
    await this.unsent.releaseAll(unfinished);
  }
}
