import { setFlagsFromString } from 'node:v8';
import { ResourceLimits, Worker } from 'node:worker_threads';
import type { Logger } from '@nestjs/common';
import type {
  DeliveryClientOptions,
  DeliveryInterrupted,
  DeliveryOutcome,
  DeliveryRequest,
  DeliveryTooLate,
} from './delivery-client';
import type { ThreadCommand, ThreadMessage, ThreadResult } from './delivery-thread.protocol';
import type { DeliveryThreadScript } from './delivery-thread.script';

export type SendResult = DeliveryOutcome | DeliveryInterrupted | DeliveryTooLate;

/**
 * A delivery thread's old generation: its live data is small (at most WEBHOOK_CONCURRENCY requests
 * and their sockets). Past the limit the thread dies and another takes over, rather than the process
 * growing.
 */
const OLD_GENERATION_MB = 64;

/**
 * The thread's heap limits. Its young generation follows the process's --max-semi-space-size
 * (npm start: 8 MB) unless WEBHOOK_DELIVERY_THREAD_SEMI_SPACE_MB gives the thread its own: two
 * semi-spaces and a large-object space of that size (letResourceLimitsSizeYoungGenerations).
 */
function threadLimits(semiSpaceMb: number | undefined): ResourceLimits {
  return semiSpaceMb === undefined
    ? { maxOldGenerationSizeMb: OLD_GENERATION_MB }
    : { maxOldGenerationSizeMb: OLD_GENERATION_MB, maxYoungGenerationSizeMb: 3 * semiSpaceMb };
}

/**
 * V8 takes a worker's young generation from its resourceLimits only when the process has no
 * --max-semi-space-size, and reads that flag as each isolate is created: clearing it leaves the
 * main heap as it started and lets the threads started after it have their own.
 */
function letResourceLimitsSizeYoungGenerations(): void {
  setFlagsFromString('--max-semi-space-size=0');
}

const START_TIMEOUT_MS = 30_000;
const RESTART_DELAY_MS = 1_000;

/**
 * One delivery thread (delivery-thread.ts) as the main thread sees it: posts the requests of one
 * tick in one message and resolves each send with the outcome it gets back. If the thread dies,
 * the deliveries it had come back `interrupted` (no record: their jobs are attempted again when
 * their lease ends, contract section 6) and a new thread takes over; sends made meanwhile wait for
 * it.
 */
export class DeliveryThread {
  private worker: Worker | undefined;
  private started = false;
  private readonly waiting = new Map<number, (result: SendResult) => void>();
  /** Requests of this tick, and of any time the thread is not ready, not posted yet. */
  private unsent: Array<{ id: number; request: DeliveryRequest; startBy?: number }> = [];
  private postScheduled = false;
  private nextId = 1;
  private closing = false;
  private restartTimer: NodeJS.Timeout | undefined;

  constructor(
    private readonly script: DeliveryThreadScript,
    private readonly options: DeliveryClientOptions,
    private readonly logger: Logger,
    /** WEBHOOK_DELIVERY_THREAD_SEMI_SPACE_MB (threadLimits). */
    private readonly semiSpaceMb?: number,
  ) {}

  /** Sends not answered yet: how busy this thread is. */
  get pending(): number {
    return this.waiting.size;
  }

  /** Ready for sends: started, not restarting (sends to it now would wait for the new thread). */
  get ready(): boolean {
    return this.started;
  }

  /** The running thread, if any (tests stop it to show a restart). */
  get thread(): Worker | undefined {
    return this.worker;
  }

  /** Starts the thread; resolves once it is ready, rejects if it fails to start. */
  start(): Promise<void> {
    if (this.semiSpaceMb !== undefined) letResourceLimitsSizeYoungGenerations();
    const worker = new Worker(this.script.filename, {
      eval: this.script.eval ?? false,
      workerData: this.options,
      resourceLimits: threadLimits(this.semiSpaceMb),
      stdout: false,
      stderr: false,
    });
    worker.unref(); // never what keeps the process up: shutdown closes it (close())
    this.worker = worker;
    return new Promise<void>((resolve, reject) => {
      const timer = setTimeout(
        () => reject(new Error('the delivery thread did not start')),
        START_TIMEOUT_MS,
      );
      worker.on('message', (message: ThreadMessage) => {
        if (message.type === 'results') return this.settle(message.results);
        clearTimeout(timer);
        this.started = true;
        this.post();
        resolve();
      });
      worker.on('error', (error) => this.logger.error({ err: error }, 'the delivery thread failed'));
      worker.on('exit', (code) => {
        clearTimeout(timer);
        if (this.worker !== worker) return;
        const wasReady = this.started;
        this.exited();
        if (this.closing) return resolve();
        if (!wasReady) return reject(new Error(`the delivery thread did not start (exit code ${code})`));
        this.logger.error(`the delivery thread stopped (exit code ${code}); starting another`);
        this.restartLater();
      });
    });
  }

  /**
   * The thread is gone: the sends it had come back `interrupted`; those not posted to it yet wait
   * for the next thread (settling them here as well would send them later with nobody waiting for
   * the outcome: no record, and a second send after the lease).
   */
  private exited(): void {
    this.worker = undefined;
    this.started = false;
    const unposted = new Set(this.unsent.map((job) => job.id));
    for (const [id, resume] of this.waiting) {
      if (unposted.has(id)) continue;
      this.waiting.delete(id);
      resume({ interrupted: true });
    }
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

  /** One attempt; never rejects. `startBy` (epoch ms): not begun by then, it comes back `tooLate`. */
  send(request: DeliveryRequest, startBy?: number): Promise<SendResult> {
    if (this.closing) return Promise.resolve({ interrupted: true });
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
    if (!this.started || this.unsent.length === 0) return;
    this.command({ type: 'send', jobs: this.unsent });
    this.unsent = [];
  }

  private command(command: ThreadCommand): void {
    this.worker?.postMessage(command);
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
   * nothing is recorded for them. Requests not handed to the thread yet come back `interrupted` too.
   */
  interruptAll(): void {
    for (const { id } of this.unsent) {
      this.waiting.get(id)?.({ interrupted: true });
      this.waiting.delete(id);
    }
    this.unsent = [];
    this.command({ type: 'interrupt' });
  }

  /** Ends the thread (closing its idle keep-alive connections). */
  async close(): Promise<void> {
    this.closing = true;
    clearTimeout(this.restartTimer);
    const worker = this.worker;
    if (!worker) return this.abandonUnsent();
    const exited = new Promise<void>((resolve) => worker.once('exit', () => resolve()));
    this.command({ type: 'close' });
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([exited, new Promise<void>((resolve) => (timer = setTimeout(resolve, 1000)))]);
    clearTimeout(timer);
    await worker.terminate();
    this.abandonUnsent();
  }

  /** Closed: sends still waiting for a thread (the worker interrupts before closing) get `interrupted`. */
  private abandonUnsent(): void {
    for (const { id } of this.unsent) this.waiting.get(id)?.({ interrupted: true });
    this.waiting.clear();
    this.unsent = [];
  }
}
