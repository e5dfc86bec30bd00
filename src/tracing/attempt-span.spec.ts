import { trace } from '@opentelemetry/api';
import {
  BasicTracerProvider,
  InMemorySpanExporter,
  SimpleSpanProcessor,
} from '@opentelemetry/sdk-trace-base';
import { DeliveryStatus } from '../common/reference/enums';
import { startAttemptSpan, TracedJob } from './attempt-span';
import { spanContextOf, traceparentOf } from './traceparent';
import { stopTracing, tracingStarted } from './tracing-state';

const PUBLISH = `00-${'a1'.repeat(16)}-${'b2'.repeat(8)}-01`;
const job = (traceContext: string | null): TracedJob => ({
  eventId: '42',
  subscriptionId: 7,
  eventType: 'LICENCE_CREATED_SUCCESS',
  trigger: 'RESEND',
  host: 'hooks.example.com',
  traceContext,
});

describe('webhook.attempt spans (contract section 12)', () => {
  const exporter = new InMemorySpanExporter();
  const provider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
  beforeAll(() => trace.setGlobalTracerProvider(provider));
  afterAll(() => trace.disable());
  afterEach(() => exporter.reset());

  it('makes nothing while tracing is off, even for a traced event', () => {
    expect(startAttemptSpan(job(PUBLISH))).toBeUndefined();
    expect(exporter.getFinishedSpans()).toEqual([]);
  });

  describe('with tracing on', () => {
    beforeAll(() =>
      tracingStarted({ onRequest: (_q, _r, done) => done(), shutdown: () => Promise.resolve() }),
    );
    afterAll(() => stopTracing(100));

    it('makes nothing for an event whose publish was not traced or sampled out', () => {
      expect(startAttemptSpan(job(null))).toBeUndefined();
      expect(startAttemptSpan(job('not a traceparent'))).toBeUndefined();
      expect(exporter.getFinishedSpans()).toEqual([]);
    });

    it('is a child of the publish span, linked to it, its traceparent the header sent', () => {
      const attempt = startAttemptSpan(job(PUBLISH))!;
      attempt.end({ status: DeliveryStatus.FAILED, httpStatusCode: 503, durationMs: 12 });
      const [span] = exporter.getFinishedSpans();
      expect(span.name).toBe('webhook.attempt');
      expect(span.spanContext().traceId).toBe('a1'.repeat(16));
      expect(span.parentSpanContext?.spanId).toBe('b2'.repeat(8));
      expect(span.links.map((l) => l.context.spanId)).toEqual(['b2'.repeat(8)]);
      expect(attempt.traceparent).toBe(traceparentOf(span.spanContext()));
      expect(span.attributes).toEqual({
        'webhook.subscription_id': 7,
        'webhook.event_id': '42',
        'webhook.event_type': 'LICENCE_CREATED_SUCCESS',
        'webhook.trigger': 'RESEND',
        'webhook.receiver_host': 'hooks.example.com',
        'webhook.outcome': 'FAILED',
        'http.response.status_code': 503,
        'webhook.duration_ms': 12,
      });
      expect(span.status.code).toBe(2); // ERROR
    });
  });
});

describe('traceparent', () => {
  it('is stored and sent only for a sampled span', () => {
    const context = spanContextOf(PUBLISH)!;
    expect(traceparentOf(context)).toBe(PUBLISH);
    expect(traceparentOf({ ...context, traceFlags: 0 })).toBeNull();
    expect(spanContextOf(PUBLISH.toUpperCase())).toBeUndefined();
  });
});
