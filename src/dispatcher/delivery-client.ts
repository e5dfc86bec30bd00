import { STATUS_CODES } from 'node:http';
import type { Agent as HttpsAgent } from 'node:https';
import type { Readable } from 'node:stream';
import type { AxiosError, AxiosInstance, AxiosResponse } from 'axios';
import type { HttpsProxyAgent } from 'https-proxy-agent';
import { DeliveryStatus } from '../common/reference/enums';
import { describeFailure, NOT_PUBLIC } from './delivery-errors';
import { customHeaderTransport, deliveryHeaders, DeliveryTransport } from './delivery-headers';
import { deliveryAgent, deliveryHttp } from './delivery-http';
import type { DeliveryClientOptions, DeliveryRequest } from './delivery-request';
import { readExcerpt } from './response-excerpt';

export type { DeliveryClientOptions, DeliveryRequest };

/** The receiver's body is read up to this much; only its first RESPONSE_EXCERPT_BYTES are kept. */
export const MAX_RESPONSE_BYTES = 64 * 1024;
const MAX_ERROR_MESSAGE = 1000;
/** Kept-alive connections found closed by the receiver that one delivery tries past. */
const MAX_STALE_CONNECTIONS = 8;

export interface DeliveryOutcome {
  status: DeliveryStatus;
  httpStatusCode: number | null;
  errorMessage: string | null;
  sentAt: Date;
  /** From the request's start to the end of the answer or the failure; null when nothing was sent. */
  durationMs: number | null;
  /** The answer's first RESPONSE_EXCERPT_BYTES as text; null when no answer arrived. */
  responseBody: string | null;
}

/** Cut off by shutdown before any answer: no record, the job is released for another attempt. */
export interface DeliveryInterrupted {
  interrupted: true;
}

/** The receiver's URL, or why nothing is sent to it. */
function receiverUrl(text: string): URL | string {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return 'invalid receiver URL';
  }
  return url.protocol === 'https:' ? url : 'blocked: the receiver URL must use HTTPS';
}

/** When one attempt started, and its outcome as a record with the time it took. */
class AttemptClock {
  readonly sentAt = new Date();
  private readonly started = performance.now();

  private elapsed(): number {
    return Math.round(performance.now() - this.started);
  }

  /** No answer; `sent` false when nothing left (a blocked destination): no duration then. */
  failed(errorMessage: string, sent = true): DeliveryOutcome {
    return {
      status: DeliveryStatus.FAILED,
      httpStatusCode: null,
      errorMessage: errorMessage.slice(0, MAX_ERROR_MESSAGE),
      sentAt: this.sentAt,
      durationMs: sent ? this.elapsed() : null,
      responseBody: null,
    };
  }

  /** The receiver answered: SUCCESS for a 2xx, FAILED with the status otherwise. */
  answered(response: AxiosResponse<Readable>, responseBody: string): DeliveryOutcome {
    const code = response.status;
    const success = code >= 200 && code < 300;
    const reason = success ? '' : (STATUS_CODES[code] ?? response.statusText ?? '');
    return {
      status: success ? DeliveryStatus.SUCCESS : DeliveryStatus.FAILED,
      httpStatusCode: code,
      errorMessage: success ? null : `HTTP ${code}${reason ? ` ${reason}` : ''}`,
      sentAt: this.sentAt,
      durationMs: this.elapsed(),
      responseBody,
    };
  }
}

/** Not sent: the delivery thread got it after its `startBy` (a rate-limited job's slot passed). */
export interface DeliveryTooLate {
  tooLate: true;
}

/**
 * Makes one HTTPS POST per delivery (contract section 6): keep-alive agents, a total time-out
 * covering DNS, connect, TLS and the response headers, no redirects, the SSRF guard on the address
 * actually connected to, and a readable outcome for every failure. Never throws. Runs on the
 * delivery thread (delivery-thread.ts); WebhookSender is its face on the main thread.
 */
export class DeliveryClient {
  private readonly agent: HttpsAgent | HttpsProxyAgent<string>;
  private readonly http: AxiosInstance;
  /** The time-out controllers of the requests in flight, for `interruptAll`. */
  private readonly inFlight = new Set<AbortController>();
  private interrupted = false;
  private readonly timeoutMs: number;
  private readonly userAgent: string;

  constructor(options: DeliveryClientOptions) {
    this.timeoutMs = options.timeoutMs;
    this.userAgent = options.userAgent;
    this.agent = deliveryAgent(options);
    this.http = deliveryHttp(this.agent);
  }

  /** Closes idle keep-alive connections. */
  close(): void {
    this.agent.destroy();
  }

  /**
   * Shutdown: aborts every request that has no answer yet. Their results are `interrupted`, and
   * nothing is recorded for them. (One set of controllers rather than a listener per request on a
   * shared signal: an EventTarget checks its listeners for duplicates on every add.)
   */
  interruptAll(): void {
    this.interrupted = true;
    for (const controller of this.inFlight) controller.abort();
  }

  /** One attempt. */
  async send(request: DeliveryRequest): Promise<DeliveryOutcome | DeliveryInterrupted> {
    const clock = new AttemptClock();
    const url = receiverUrl(request.url);
    if (typeof url === 'string') return clock.failed(url, false);
    // The time of this attempt, in whole seconds (Standard Webhooks' `webhook-timestamp`).
    const timestamp = Math.floor(clock.sentAt.getTime() / 1000);
    const sent = {
      headers: deliveryHeaders(request, this.userAgent, timestamp),
      transport: customHeaderTransport(request),
    };
    const deadline = this.startDeadline();
    try {
      const response = await this.post(url.href, request.payload, sent, deadline.controller.signal);
      // The answer is the status line: the body is read (up to the cap) to keep the connection
      // reusable, within what is left of the time budget, and its first bytes kept for the record.
      const responseBody = await readExcerpt(response.data, MAX_RESPONSE_BYTES);
      return clock.answered(response, responseBody);
    } catch (error) {
      if (deadline.timedOut) return clock.failed(`timed out after ${this.timeoutMs} ms`);
      if (this.interrupted) return { interrupted: true };
      const message = describeFailure(error, url.hostname);
      // A refused destination was never connected to: nothing was sent.
      return clock.failed(message, message !== NOT_PUBLIC);
    } finally {
      deadline.clear();
    }
  }

  /**
   * The total time-out of one attempt: DNS, connect, TLS and response headers (axios' own `timeout`
   * is per socket idle). Its controller is in `inFlight` until `clear`, for `interruptAll`.
   */
  private startDeadline(): { controller: AbortController; timedOut: boolean; clear(): void } {
    const controller = new AbortController();
    const timer = setTimeout(() => {
      deadline.timedOut = true;
      controller.abort();
    }, this.timeoutMs);
    this.inFlight.add(controller);
    const deadline = {
      controller,
      timedOut: false,
      clear: () => {
        clearTimeout(timer);
        this.inFlight.delete(controller);
      },
    };
    return deadline;
  }

  /**
   * The POST, sent once more on a new connection when a kept-alive one turns out to have been
   * closed by the receiver as the request went out (reset before any answer, on a reused socket:
   * the race Node's documentation describes for keep-alive clients). Such a request is not an
   * attempt the receiver answered; anything else is the outcome.
   */
  private async post(
    url: string,
    payload: string,
    sent: { headers: Record<string, string | false>; transport: DeliveryTransport | undefined },
    signal: AbortSignal,
  ): Promise<AxiosResponse<Readable>> {
    // Each stale connection found is gone from the pool, so this ends on a new one at the latest.
    for (let tries = 1; ; tries++) {
      try {
        return await this.http.request<Readable>({ url, data: payload, ...sent, signal });
      } catch (error) {
        const err = error as AxiosError & { request?: { reusedSocket?: boolean } };
        const stale =
          err.request?.reusedSocket === true &&
          err.response === undefined &&
          (err.code === 'ECONNRESET' || err.code === 'EPIPE') &&
          !signal.aborted;
        if (!stale || tries === MAX_STALE_CONNECTIONS) throw error;
      }
    }
  }
}
