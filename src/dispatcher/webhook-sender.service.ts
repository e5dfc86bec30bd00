import { Inject, Injectable, Logger, OnModuleInit } from '@nestjs/common';
import { ConfigService } from '@nestjs/config';
import { SecretBox } from '../common/crypto/secret-box';
import type { AppConfig } from '../config/configuration';
import type { DeliveryClientOptions } from './delivery-client';
import { DeliveryJob, DeliveryJobOpener } from './delivery-job';
import { DeliveryThread, SendResult } from './delivery-thread.handle';
import { DELIVERY_THREAD_SCRIPT, DeliveryThreadScript } from './delivery-thread.script';
import { WEBHOOK_TLS_OPTIONS, WebhookTlsOptions } from './webhook-tls';

export type { DeliveryInterrupted, DeliveryOutcome, DeliveryTooLate } from './delivery-client';

/**
 * Sends deliveries through the delivery threads (WEBHOOK_DELIVERY_THREADS of them, each a
 * DeliveryThread running DeliveryClient on its own event loop): the main thread decrypts the custom
 * header and the signing secrets (DeliveryJobOpener) and hands each request to the thread with the
 * fewest sends unanswered, so a burst's posts spread over the threads' cores.
 */
@Injectable()
export class WebhookSender implements OnModuleInit {
  private readonly logger = new Logger('WebhookSender');
  private readonly threads: DeliveryThread[];
  private readonly jobs: DeliveryJobOpener;
  private closing = false;

  constructor(
    config: ConfigService<AppConfig, true>,
    secrets: SecretBox,
    @Inject(WEBHOOK_TLS_OPTIONS) tls: WebhookTlsOptions,
    @Inject(DELIVERY_THREAD_SCRIPT) script: DeliveryThreadScript,
  ) {
    this.jobs = new DeliveryJobOpener(secrets);
    const webhook = config.getOrThrow('webhook', { infer: true });
    const ca = tls.ca === undefined ? undefined : [tls.ca].flat().map((pem) => pem.toString());
    const options: DeliveryClientOptions = {
      timeoutMs: webhook.timeoutMs,
      allowPrivateNetworks: webhook.allowPrivateNetworks,
      ...(webhook.proxyUrl ? { proxyUrl: webhook.proxyUrl } : {}),
      ...(ca ? { ca } : {}),
      userAgent: `partner-integration-service/${config.getOrThrow('app', { infer: true }).version}`,
    };
    this.threads = Array.from(
      { length: webhook.deliveryThreads },
      () => new DeliveryThread(script, options, this.logger, webhook.deliveryThreadSemiSpaceMb),
    );
  }

  /** Starts the threads; the application does not start unless every one does. */
  async onModuleInit(): Promise<void> {
    const started = await Promise.allSettled(this.threads.map((thread) => thread.start()));
    const failed = started.find((result) => result.status === 'rejected');
    if (!failed) return;
    await this.close();
    throw failed.reason;
  }

  /**
   * One attempt, with the `traceparent` header of its span if traced; never rejects. `startBy`
   * (epoch ms): not begun by then, it comes back `tooLate`.
   */
  send(job: DeliveryJob, traceparent?: string, startBy?: number): Promise<SendResult> {
    if (this.closing) return Promise.resolve({ interrupted: true });
    const request = this.jobs.open(job);
    if ('status' in request) return Promise.resolve(request); // FAILED: a secret is unreadable
    if (traceparent !== undefined) request.traceparent = traceparent;
    return this.leastBusy().send(request, startBy);
  }

  /** The ready thread with the fewest sends unanswered (a restarting one only if none is ready). */
  private leastBusy(): DeliveryThread {
    let best = this.threads[0];
    for (const thread of this.threads) {
      const better = thread.ready === best.ready ? thread.pending < best.pending : thread.ready;
      if (better) best = thread;
    }
    return best;
  }

  /**
   * Shutdown: aborts every request that has no answer yet. Their results are `interrupted`, and
   * nothing is recorded for them. Jobs not handed to a thread yet come back `interrupted` too.
   */
  interruptAll(): void {
    for (const thread of this.threads) thread.interruptAll();
  }

  /** Ends the threads (closing their idle keep-alive connections); called by the worker once drained. */
  async close(): Promise<void> {
    this.closing = true;
    await Promise.all(this.threads.map((thread) => thread.close()));
  }
}
