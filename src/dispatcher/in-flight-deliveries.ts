import { Logger } from '@nestjs/common';
import type { MetricsService } from '../metrics/metrics.service';
import { startAttemptSpan } from '../tracing/attempt-span';
import type { AdmissionPolicy } from './admission-policy';
import type { CompletionWriter } from './completion-writer';
import type { DeliveryOutcome } from './delivery-client';
import { inactiveOutcome } from './inactive-subscriptions';
import type { ClaimedJob } from './webhook-jobs.repository';
import type { WebhookSender } from './webhook-sender.service';

/**
 * How long shutdown waits for the records of finished deliveries, past the grace period: the
 * process ends within the grace period plus 5 s whatever the database does (contract section 8).
 */
const RECORDS_AT_SHUTDOWN_MS = 2000;

/**
 * The deliveries running here: each sends one job (WebhookSender), hands its outcome to the
 * CompletionWriter and tells the AdmissionPolicy how its receiver did; a 410 is told to
 * `receiverGone` before the slot goes to another job.
 */
export class InFlightDeliveries {
  private readonly logger = new Logger('WebhookWorker');
  private readonly running = new Map<string, Promise<void>>();

  constructor(
    private readonly sender: WebhookSender,
    private readonly completions: CompletionWriter,
    private readonly policy: AdmissionPolicy,
    private readonly metrics: MetricsService,
    private readonly receiverGone: (job: ClaimedJob) => void,
  ) {}

  get size(): number {
    return this.running.size;
  }

  /** Running or done here (its record not written yet): never sent again from this instance. */
  has(jobId: string): boolean {
    return this.running.has(jobId) || this.completions.has(jobId);
  }

  /**
   * Runs one delivery, counted by the policy as started already; `done` runs once it finished, told
   * whether the job was not sent after all (`startBy` passed: to be handed back).
   */
  start(job: ClaimedJob, done: (job: ClaimedJob, unsent: boolean) => void, startBy?: number): void {
    let answered: boolean | undefined;
    let tooLate = false;
    const run = async () => {
      // Undefined, and nothing made, unless the event's publish was traced and sampled.
      const span = startAttemptSpan(job);
      const result = await this.sender.send(job, span?.traceparent, startBy);
      span?.end(result);
      if ('tooLate' in result) {
        tooLate = true;
        return;
      }
      // Interrupted by shutdown before any answer: no record; released at shutdown for another attempt.
      if ('interrupted' in result) return;
      answered = result.httpStatusCode !== null;
      this.complete(job, result);
      if (result.httpStatusCode === 410) this.receiverGone(job); // deactivated by its record
    };
    const task = run()
      .catch((error: unknown) => this.logger.error({ err: error, jobId: job.id }, 'webhook delivery crashed'))
      .finally(() => {
        this.running.delete(job.id);
        this.policy.finished(job, answered, Date.now());
        done(job, tooLate);
      });
    this.running.set(job.id, task);
  }

  /** Jobs of an inactive subscription: recorded FAILED `subscription inactive`, never sent (contract section 11). */
  refuse(jobs: ClaimedJob[]): void {
    for (const job of jobs) this.complete(job, inactiveOutcome());
  }

  private complete(job: ClaimedJob, result: DeliveryOutcome): void {
    this.metrics.deliveryAttempted({
      outcome: result.status,
      trigger: job.trigger,
      durationMs: Date.now() - result.sentAt.getTime(),
      sentAt: result.sentAt,
      publishedAt: job.publishedAt,
    });
    const { id: jobId, eventId, subscriptionId, eventType, tenant, trigger } = job;
    this.completions.add({ jobId, eventId, subscriptionId, eventType, tenant, trigger, ...result });
  }

  /**
   * Shutdown: lets running deliveries finish within `graceMs`, interrupts the rest (no record) and
   * writes every finished one, for at most RECORDS_AT_SHUTDOWN_MS. Returns how many were
   * interrupted, and how many finished ones are left unrecorded (both are delivered again).
   */
  async finish(graceMs: number): Promise<{ interrupted: number; unrecorded: number }> {
    if (this.running.size > 0) {
      let timer: NodeJS.Timeout | undefined;
      await Promise.race([
        Promise.allSettled(this.running.values()),
        new Promise<void>((resolve) => (timer = setTimeout(resolve, graceMs))),
      ]);
      clearTimeout(timer);
    }
    const interrupted = this.running.size;
    this.sender.interruptAll();
    await Promise.allSettled(this.running.values());
    const unrecorded = await this.completions.finish(RECORDS_AT_SHUTDOWN_MS);
    return { interrupted, unrecorded };
  }
}
