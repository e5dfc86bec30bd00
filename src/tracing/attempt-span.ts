import { ROOT_CONTEXT, SpanKind, SpanStatusCode, trace, type Span } from '@opentelemetry/api';
import { DeliveryStatus } from '../common/reference/enums';
import { spanContextOf, traceparentOf } from './traceparent';
import { ATTR, serviceTracer } from './tracer';
import { tracingOn } from './tracing-state';

/** The job of one attempt, as the claim read it. */
export interface TracedJob {
  eventId: string;
  subscriptionId: number;
  eventType: string;
  trigger: string;
  host: string;
  /** The publish span's `traceparent`, stored with the event; null: not traced or sampled out. */
  traceContext: string | null;
}

/** What came of the attempt: an outcome, cut off by shutdown, or not sent (its rate slot passed). */
export type AttemptResult =
  | { interrupted: true }
  | { tooLate: true }
  | { status: DeliveryStatus; httpStatusCode: number | null; durationMs: number | null };

export interface AttemptSpan {
  /** Sent as the delivery's `traceparent` header: the receiver's spans join this trace. */
  traceparent: string;
  end(result: AttemptResult): void;
}

/**
 * Starts the `webhook.attempt` span of one delivery at hand-over to the delivery thread; the caller
 * ends it with the outcome. Its parent is the publish span (the attempt is in the publish's trace,
 * so one trace shows the event and every delivery of it) and it also links to it, as OpenTelemetry's
 * messaging conventions ask of a consumer span. Undefined, with nothing made, when tracing is off or
 * the event was not traced (its publish sampled out, or published with tracing off).
 */
export function startAttemptSpan(job: TracedJob): AttemptSpan | undefined {
  if (job.traceContext === null || !tracingOn()) return undefined;
  const publish = spanContextOf(job.traceContext);
  if (!publish) return undefined;
  const span = serviceTracer().startSpan(
    'webhook.attempt',
    {
      kind: SpanKind.CLIENT,
      links: [{ context: publish }],
      attributes: {
        [ATTR.subscriptionId]: job.subscriptionId,
        [ATTR.eventId]: job.eventId,
        [ATTR.eventType]: job.eventType,
        [ATTR.trigger]: job.trigger,
        [ATTR.receiverHost]: job.host,
      },
    },
    trace.setSpanContext(ROOT_CONTEXT, publish),
  );
  const traceparent = traceparentOf(span.spanContext());
  if (traceparent === null) return undefined; // a sampler that does not follow the parent said no
  return { traceparent, end: (result) => endAttempt(span, result) };
}

function endAttempt(span: Span, result: AttemptResult): void {
  if ('interrupted' in result) {
    span.setAttribute(ATTR.outcome, 'INTERRUPTED');
  } else if ('tooLate' in result) {
    span.setAttribute(ATTR.outcome, 'NOT_SENT'); // handed back to the outbox: another attempt follows
  } else {
    span.setAttribute(ATTR.outcome, result.status);
    if (result.httpStatusCode !== null) span.setAttribute(ATTR.httpStatus, result.httpStatusCode);
    if (result.durationMs !== null) span.setAttribute(ATTR.durationMs, result.durationMs);
    if (result.status === DeliveryStatus.FAILED) span.setStatus({ code: SpanStatusCode.ERROR });
  }
  span.end();
}
