import type { SpanContext } from '@opentelemetry/api';

/** W3C Trace Context `traceparent`, version 00: trace id, parent span id, flags. */
const TRACEPARENT = /^00-([0-9a-f]{32})-([0-9a-f]{16})-([0-9a-f]{2})$/;
const SAMPLED = 0x01;

/** The `traceparent` of a sampled span, or null: a sampled-out span is never stored nor sent on. */
export function traceparentOf(context: SpanContext): string | null {
  if ((context.traceFlags & SAMPLED) === 0) return null;
  if (/^0+$/.test(context.traceId) || /^0+$/.test(context.spanId)) return null;
  return `00-${context.traceId}-${context.spanId}-01`;
}

/** The span context a stored `traceparent` names (remote: another process may have written it). */
export function spanContextOf(traceparent: string): SpanContext | undefined {
  const match = TRACEPARENT.exec(traceparent);
  if (!match) return undefined;
  return { traceId: match[1], spanId: match[2], traceFlags: parseInt(match[3], 16), isRemote: true };
}
