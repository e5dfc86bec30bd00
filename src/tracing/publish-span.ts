import { context, SpanKind, SpanStatusCode, trace, type Attributes } from '@opentelemetry/api';
import { traceparentOf } from './traceparent';
import { ATTR, serviceTracer } from './tracer';
import { tracingOn } from './tracing-state';

/** What a publication answers that its span records. */
export interface PublishedEvent {
  eventId: number | string;
  matched?: number;
}

/**
 * Runs `publish` (the outbox's insert of an event and its jobs) inside a `publish` span, and hands
 * it the span's `traceparent` to store with the event: every attempt at the event, the first or a
 * resend days later, links back to it. Null when the span is sampled out (nothing stored, and its
 * deliveries cost nothing) or tracing is off (no span at all).
 */
export async function tracePublish<T>(
  attributes: Attributes,
  publish: (traceContext: string | null) => Promise<T>,
  recorded: (result: T) => PublishedEvent | undefined,
): Promise<T> {
  if (!tracingOn()) return publish(null);
  const span = serviceTracer().startSpan('publish', { kind: SpanKind.PRODUCER, attributes });
  try {
    const active = trace.setSpan(context.active(), span);
    const result = await context.with(active, () => publish(traceparentOf(span.spanContext())));
    const event = recorded(result);
    if (event) {
      span.setAttribute(ATTR.eventId, String(event.eventId));
      if (event.matched !== undefined) span.setAttribute(ATTR.matched, event.matched);
    }
    return result;
  } catch (error) {
    // The type only: a database error's message may quote a value.
    span.setStatus({ code: SpanStatusCode.ERROR });
    span.setAttribute(ATTR.errorType, error instanceof Error ? error.name : typeof error);
    throw error;
  } finally {
    span.end();
  }
}
