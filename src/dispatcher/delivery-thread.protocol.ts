import type { DeliveryStatus } from '../common/reference/enums';
import type { DeliveryRequest } from './delivery-client';

/** Messages between WebhookSender (main thread) and the delivery thread (delivery-thread.ts). */
export type ThreadCommand =
  /** `startBy` (epoch ms): a rate-limited job not begun by then is answered `tooLate`, unsent. */
  | { type: 'send'; jobs: Array<{ id: number; request: DeliveryRequest; startBy?: number }> }
  /** Shutdown: abort every request without an answer yet (they come back `interrupted`). */
  | { type: 'interrupt' }
  /** Close idle connections and end the thread. */
  | { type: 'close' };

/** The outcome of one `send` job; `sentAt` in epoch milliseconds. */
export type ThreadResult =
  | { id: number; interrupted: true }
  | { id: number; tooLate: true }
  | {
      id: number;
      status: DeliveryStatus;
      httpStatusCode: number | null;
      errorMessage: string | null;
      sentAt: number;
      durationMs: number | null;
      responseBody: string | null;
    };

export type ThreadMessage = { type: 'ready' } | { type: 'results'; results: ThreadResult[] };
