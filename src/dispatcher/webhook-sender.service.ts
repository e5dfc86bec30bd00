import { Worker } from 'node:worker_threads';
import { Inject, Injectable, Logger, OnModuleInit } from '@nestjs/common';
import { ConfigService } from '@nestjs/config';
import { SecretBox } from '../common/crypto/secret-box';
import type { AppConfig } from '../config/configuration';
import type {
  DeliveryClientOptions,
  DeliveryInterrupted,
  DeliveryOutcome,
  DeliveryRequest,
  DeliveryTooLate,
} from './delivery-client';
import { DeliveryJob, DeliveryJobOpener } from './delivery-job';
import type { ThreadCommand, ThreadMessage, ThreadResult } from './delivery-thread.protocol';
import { DELIVERY_THREAD_SCRIPT, DeliveryThreadScript } from './delivery-thread.script';
import { WEBHOOK_TLS_OPTIONS, WebhookTlsOptions } from './webhook-tls';

export type { DeliveryInterrupted, DeliveryOutcome, DeliveryTooLate } from './delivery-client';

type SendResult = DeliveryOutcome | DeliveryInterrupted | DeliveryTooLate;

/**
 * The delivery thread's old generation: its live data is small (at most WEBHOOK_CONCURRENCY requests
 * and their sockets). Its young generation follows the process's --max-semi-space-size (npm start).
 * Past the limit the thread dies and another takes over, rather than the process growing.
 */
const THREAD_LIMITS = { maxOldGenerationSizeMb: 64 };
const START_TIMEOUT_MS = 30_000;
const RESTART_DELAY_MS = 1_000;

/**
 * Sends deliveries through the delivery thread (delivery-thread.ts, DeliveryClient): the main
 * thread decrypts the custom header and the signing secrets (DeliveryJobOpener), posts the jobs of
 * one tick in one message and gets the outcomes back in batches. If the thread dies, the deliveries
 * it had come back `interrupted` (no record: their jobs are attempted again when their lease ends,
 * contract section 6) and a new thread takes over.
 */
@Injectable()
export class WebhookSender implements OnModuleInit {
  private readonly logger = new Logger('WebhookSender');
  private readonly options: DeliveryClientOptions;
  private thread: Worker | undefined;
  private ready = false;
  private readonly waiting = new Map<number, (result: SendResult) => void>();
  /** Jobs of this tick, and of any time the thread is not ready, not posted yet. */
  private unsent: Array<{ id: number; request: DeliveryRequest; startBy?: number }> = [];
  private postScheduled = false;
  private nextId = 1;
  private closing = false;
  private restartTimer: NodeJS.Timeout | undefined;
  private readonly jobs: DeliveryJobOpener;

  constructor(
    config: ConfigService<AppConfig, true>,
    secrets: SecretBox,
    @Inject(WEBHOOK_TLS_OPTIONS) tls: WebhookTlsOptions,
    @Inject(DELIVERY_THREAD_SCRIPT) private readonly script: DeliveryThreadScript,
  ) {
    this.jobs = new DeliveryJobOpener(secrets);
    const webhook = config.getOrThrow('webhook', { infer: true });
    const ca = tls.ca === undefined ? undefined : [tls.ca].flat().map((pem) => pem.toString());
    this.options = {
      timeoutMs: webhook.timeoutMs,
      allowPrivateNetworks: webhook.allowPrivateNetworks,
      ...(webhook.proxyUrl ? { proxyUrl: webhook.proxyUrl } : {}),
      ...(ca ? { ca } : {}),
      userAgent: `partner-integration-service/${config.getOrThrow('app', { infer: true }).version}`,
    };
  }

  /** Starts the thread; the application does not start without it. */
  onModuleInit(): Promise<void> {
    return this.start();
  }

  private start(): Promise<void> {
    const thread = new Worker(this.script.filename, {
      eval: this.script.eval ?? false,
      workerData: this.options,
      resourceLimits: THREAD_LIMITS,
      stdout: false,
      stderr: false,
    });
    thread.unref(); // never what keeps the process up: shutdown closes it (close())
    this.thread = thread;
    return new Promise<void>((resolve, reject) => {
      const timer = setTimeout(
        () => reject(new Error('the delivery thread did not start')),
        START_TIMEOUT_MS,
      );
      thread.on('message', (message: ThreadMessage) => {
        if (message.type === 'results') return this.settle(message.results);
        clearTimeout(timer);
        this.ready = true;
        this.post();
        resolve();
      });
      thread.on('error', (error) => this.logger.error({ err: error }, 'the delivery thread failed'));
      thread.on('exit', (code) => {
        clearTimeout(timer);
        if (this.thread !== thread) return;
        const wasReady = this.ready;
        this.thread = undefined;
        this.ready = false;
        // The jobs this thread had come back `interrupted`; those not posted to it yet wait for the
        // next thread (settling them here as well would send them later with nobody waiting for
        // the outcome: no record, and a second send after the lease).
        const unposted = new Set(this.unsent.map((job) => job.id));
        for (const [id, resume] of this.waiting) {
          if (unposted.has(id)) continue;
          this.waiting.delete(id);
          resume({ interrupted: true });
        }
        if (this.closing) return resolve();
        if (!wasReady) return reject(new Error(`the delivery thread did not start (exit code ${code})`));
        this.logger.error(`the delivery thread stopped (exit code ${code}); starting another`);
        this.restartLater();
      });
    });
  }

  /** Starts a new thread after RESTART_DELAY_MS, and again until one starts; sends wait in `unsent`. */
  private restartLater(): void {
    this.restartTimer = setTimeout(() => {
      this.start().catch((error: unknown) => {
        this.logger.error({ err: error }, 'restarting the delivery thread failed; trying again');
        if (!this.closing) this.restartLater();
      });
    }, RESTART_DELAY_MS);
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
    const id = this.nextId++;
    this.unsent.push(startBy === undefined ? { id, request } : { id, request, startBy });
    if (!this.postScheduled) {
      this.postScheduled = true;
      queueMicrotask(() => this.post());
    }
    return new Promise((resolve) => this.waiting.set(id, resolve));
  }

  private post(): void {
    this.postScheduled = false;
    if (!this.ready || this.unsent.length === 0) return;
    this.command({ type: 'send', jobs: this.unsent });
    this.unsent = [];
  }

  private command(command: ThreadCommand): void {
    this.thread?.postMessage(command);
  }

  private settle(results: ThreadResult[]): void {
    for (const result of results) {
      const resume = this.waiting.get(result.id);
      if (!resume) continue;
      this.waiting.delete(result.id);
      resume(
        'interrupted' in result || 'tooLate' in result
          ? result
          : {
              status: result.status,
              httpStatusCode: result.httpStatusCode,
              errorMessage: result.errorMessage,
              sentAt: new Date(result.sentAt),
              durationMs: result.durationMs,
              responseBody: result.responseBody,
            },
      );
    }
  }

  /**
   * Shutdown: aborts every request that has no answer yet. Their results are `interrupted`, and
   * nothing is recorded for them. Jobs not handed to the thread yet come back `interrupted` too.
   */
  interruptAll(): void {
    for (const { id } of this.unsent) {
      this.waiting.get(id)?.({ interrupted: true });
      this.waiting.delete(id);
    }
    this.unsent = [];
    this.command({ type: 'interrupt' });
  }

  /** Ends the thread (closing its idle keep-alive connections); called by the worker once drained. */
  async close(): Promise<void> {
    this.closing = true;
    clearTimeout(this.restartTimer);
    const thread = this.thread;
    if (!thread) return this.abandonUnsent();
    const exited = new Promise<void>((resolve) => thread.once('exit', () => resolve()));
    this.command({ type: 'close' });
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([exited, new Promise<void>((resolve) => (timer = setTimeout(resolve, 1000)))]);
    clearTimeout(timer);
    await thread.terminate();
    this.abandonUnsent();
  }

  /** Closed: sends still waiting for a thread (the worker interrupts before closing) get `interrupted`. */
  private abandonUnsent(): void {
    for (const { id } of this.unsent) this.waiting.get(id)?.({ interrupted: true });
    this.waiting.clear();
    this.unsent = [];
  }
}
