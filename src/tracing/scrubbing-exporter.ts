import { SpanKind } from '@opentelemetry/api';
import type { ExportResult } from '@opentelemetry/core';
import type { ReadableSpan, SpanExporter, TimedEvent } from '@opentelemetry/sdk-trace-base';
import { ATTR, SCOPE } from './tracer';

/**
 * Attributes a span may carry out of the service (contract section 12): method, route template and
 * status of a request; system, database, operation and server of a statement; the service's own.
 * An allow-list, not a deny-list: whatever an instrumentation adds in a later version (a URL with
 * its query string, a header value, a client address, a statement's text or values) is dropped
 * unless named here.
 */
const KEPT: ReadonlySet<string> = new Set([
  // HTTP server spans (both the old and the stable semantic conventions)
  'http.method',
  'http.request.method',
  'http.route',
  'http.status_code',
  'http.response.status_code',
  'http.scheme',
  'url.scheme',
  'http.flavor',
  'network.protocol.version',
  // PostgreSQL statements: never the text (db.statement, db.query.text) nor values
  'db.system',
  'db.system.name',
  'db.name',
  'db.namespace',
  'db.operation',
  'db.operation.name',
  'net.peer.name',
  'net.peer.port',
  'server.port',
  ...Object.values(ATTR),
]);

/** The database's address on a statement; on a request it is the Host header's value: dropped. */
const KEPT_BUT_ON_REQUESTS: ReadonlySet<string> = new Set(['server.address']);

/** An exception event keeps its type; its message and stack may quote a value or a statement. */
function scrubbedEvent(event: TimedEvent): TimedEvent {
  const type = event.attributes?.['exception.type'];
  return { ...event, attributes: type === undefined ? {} : { 'exception.type': type } };
}

/**
 * The span as exported: the kept attributes, events without messages, the status without one. A
 * plain object of the same shape every time: a view through a prototype (Object.create) made the
 * serializer three times slower per span.
 */
function scrubbed(span: ReadableSpan): ReadableSpan {
  const request = span.kind === SpanKind.SERVER;
  const kept = (key: string) => KEPT.has(key) || (!request && KEPT_BUT_ON_REQUESTS.has(key));
  const context = span.spanContext();
  return {
    name: span.name,
    kind: span.kind,
    spanContext: () => context,
    parentSpanContext: span.parentSpanContext,
    startTime: span.startTime,
    endTime: span.endTime,
    status: { code: span.status.code },
    attributes: Object.fromEntries(Object.entries(span.attributes).filter(([key]) => kept(key))),
    links: span.links,
    events: span.events.map(scrubbedEvent),
    duration: span.duration,
    ended: span.ended,
    resource: span.resource,
    instrumentationScope: span.instrumentationScope,
    droppedAttributesCount: span.droppedAttributesCount,
    droppedEventsCount: span.droppedEventsCount,
    droppedLinksCount: span.droppedLinksCount,
  };
}

/** The service's own spans (publish, webhook.attempt) carry only ATTR's names and no events: as they are. */
const scrubbedUnlessOwn = (span: ReadableSpan): ReadableSpan =>
  span.instrumentationScope.name === SCOPE ? span : scrubbed(span);

/**
 * Wraps the OTLP exporter: every span is scrubbed as its batch is exported, off the request path,
 * whichever instrumentation made it.
 */
export class ScrubbingExporter implements SpanExporter {
  constructor(private readonly exporter: SpanExporter) {}

  export(spans: ReadableSpan[], done: (result: ExportResult) => void): void {
    this.exporter.export(spans.map(scrubbedUnlessOwn), done);
  }

  shutdown(): Promise<void> {
    return this.exporter.shutdown();
  }

  forceFlush(): Promise<void> {
    return this.exporter.forceFlush?.() ?? Promise.resolve();
  }
}
