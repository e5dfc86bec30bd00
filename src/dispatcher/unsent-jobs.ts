import { Logger } from '@nestjs/common';
import { refusedWhenInactive } from './inactive-subscriptions';
import type { ClaimedJob, WebhookJobsRepository } from './webhook-jobs.repository';

/** Claimed jobs waiting here: the claimed-ahead queue, or the paced jobs of rate-limited subscriptions. */
interface WaitingJobs {
  readonly length: number;
  subscriptionIds(): number[];
  dropWhere(gone: (job: ClaimedJob) => boolean): ClaimedJob[];
}

/**
 * Claimed jobs that will not be sent from this instance: dropped when their subscription went
 * (deleted, or moved to another tenant: contract section 5), refused (recorded FAILED) when it was
 * deactivated (contract section 11), handed back when they waited too long
 * in the queue, and all handed back at shutdown. A failure is logged; the lease runs out instead, and
 * the jobs are claimed again then.
 */
export class UnsentJobs {
  private readonly logger = new Logger('WebhookWorker');

  constructor(
    private readonly jobs: WebhookJobsRepository,
    private readonly instanceId: string,
  ) {}

  /**
   * Drops, unsent, the queued jobs whose subscription is gone or now another tenant's: their jobs
   * left the outbox with it. Those already in flight finish; their records are not written (the
   * completion statement). Queued jobs of a subscription now inactive go to `refuse`, unless test
   * events.
   */
  async dropGone(queue: WaitingJobs, refuse: (jobs: ClaimedJob[]) => void): Promise<void> {
    if (queue.length === 0) return;
    try {
      const current = await this.jobs.currentSubscriptions(queue.subscriptionIds());
      queue.dropWhere((job) => current.get(job.subscriptionId)?.tenant !== job.tenant);
      refuse(queue.dropWhere((job) => !current.get(job.subscriptionId)?.active && refusedWhenInactive(job)));
    } catch (error) {
      // They are sent; their records are not written, or written as any other attempt.
      this.logger.error({ err: error }, 'checking queued webhook jobs against their subscriptions failed');
    }
  }

  /** Hands back jobs that waited too long in the queue: their claim was not an attempt. */
  async handBack(jobs: ClaimedJob[]): Promise<void> {
    try {
      await this.jobs.releaseUnsent(
        jobs.map((job) => job.id),
        this.instanceId,
      );
    } catch (error) {
      this.logger.error({ err: error, count: jobs.length }, 'handing back queued webhook jobs failed');
    }
  }

  /**
   * Shutdown: hands back every job leased here, so another instance takes them at once: those
   * interrupted, and those delivered whose record could not be written (sent again: allowed duplicates).
   */
  async releaseAll({ interrupted, unrecorded }: { interrupted: number; unrecorded: number }): Promise<void> {
    try {
      const released = await this.jobs.releaseAll(this.instanceId);
      if (released > 0 || interrupted > 0 || unrecorded > 0) {
        this.logger.log(
          `shutdown: ${interrupted} deliveries interrupted, ${unrecorded} delivered but not recorded, ${released} jobs released`,
        );
      }
    } catch (error) {
      this.logger.error({ err: error }, 'releasing webhook jobs at shutdown failed');
    }
  }
}
