import type { ConfigService } from '@nestjs/config';
import type { AppConfig } from '../config/configuration';

/** The worker's timings and sizes, derived from WEBHOOK_CONCURRENCY, WEBHOOK_TIMEOUT_MS and SHUTDOWN_GRACE_MS. */
export interface WorkerSettings {
  /** Deliveries in flight at once (WEBHOOK_CONCURRENCY). */
  concurrency: number;
  /** Jobs leased here at once, in flight or claimed ahead. */
  capacity: number;
  /** ≤ WEBHOOK_TIMEOUT_MS + 5 s; with the sweep period (≤ 5 s) a crashed instance's jobs are retried
   * within WEBHOOK_TIMEOUT_MS + 10 s of another instance running (contract section 6). */
  leaseMs: number;
  sweepMs: number;
  graceMs: number;
  /** How long a subscription whose receiver gave no answer is held to one request at a time. */
  unresponsiveForMs: number;
}

export function workerSettings(config: ConfigService<AppConfig, true>): WorkerSettings {
  const { concurrency, timeoutMs } = config.getOrThrow('webhook', { infer: true });
  const margin = Math.min(5000, Math.max(2000, timeoutMs));
  return {
    concurrency,
    capacity: 2 * concurrency,
    leaseMs: timeoutMs + margin,
    sweepMs: Math.min(5000, Math.max(250, Math.floor(timeoutMs / 2))),
    graceMs: config.getOrThrow('app', { infer: true }).shutdownGraceMs,
    unresponsiveForMs: Math.max(60_000, 2 * timeoutMs),
  };
}
