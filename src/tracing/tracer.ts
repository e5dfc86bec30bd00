import { context, ROOT_CONTEXT, trace, type Tracer } from '@opentelemetry/api';
import { tracingOn } from './tracing-state';

/** The instrumentation scope of the service's own spans (publish, webhook.attempt). */
export const SCOPE = 'partner-integration-service';

/** Only called with tracing on: the API alone (no SDK) answers a no-op tracer otherwise. */
export const serviceTracer = (): Tracer => trace.getTracer(SCOPE);

/** Attribute names of the service's own spans (contract section 12); kept by the span scrubber. */
export const ATTR = {
  eventId: 'webhook.event_id',
  eventType: 'webhook.event_type',
  tenant: 'webhook.tenant',
  matched: 'webhook.matched_subscriptions',
  subscriptionId: 'webhook.subscription_id',
  trigger: 'webhook.trigger',
  outcome: 'webhook.outcome',
  durationMs: 'webhook.duration_ms',
  httpStatus: 'http.response.status_code',
  receiverHost: 'webhook.receiver_host',
  errorType: 'error.type',
} as const;

/**
 * Runs `work` outside the caller's trace: background work a request merely woke (the worker's claims,
 * its deliveries and records) would otherwise inherit the request's context through every promise
 * and timer it creates, and hang its statements on that one request's trace.
 */
export function outsideTraces<T>(work: () => T): T {
  return tracingOn() ? context.with(ROOT_CONTEXT, work) : work();
}
