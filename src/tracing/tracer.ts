import { trace, type Tracer } from '@opentelemetry/api';

/** The instrumentation scope of the service's own spans (publish, webhook.attempt). */
const SCOPE = 'partner-integration-service';

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
