import type { ExportResult } from '@opentelemetry/core';
import type { ReadableSpan, SpanExporter } from '@opentelemetry/sdk-trace-base';
import { ScrubbingExporter } from './scrubbing-exporter';

/** What the HTTP and pg instrumentations set, old and stable conventions, with secrets in it. */
const span = {
  name: 'GET /webhooks/subscriptions/:id',
  kind: 1, // SpanKind.SERVER
  instrumentationScope: { name: '@opentelemetry/instrumentation-http' },
  spanContext: () => ({ traceId: 'a'.repeat(32), spanId: 'b'.repeat(16), traceFlags: 1 }),
  attributes: {
    'http.request.method': 'GET',
    'http.route': '/webhooks/subscriptions/:id',
    'http.response.status_code': 200,
    'url.full': 'http://h/webhooks/subscriptions/1?token=SECRET',
    'url.query': 'token=SECRET',
    'url.path': '/webhooks/subscriptions/1',
    'http.target': '/webhooks/subscriptions/1?token=SECRET',
    'http.url': 'http://h/webhooks/subscriptions/1?token=SECRET',
    'user_agent.original': 'SECRET-agent',
    'http.request.header.authorization': ['Bearer SECRET'],
    'client.address': '10.0.0.1',
    'server.address': 'SECRET.example', // the Host header
    'db.system.name': 'postgresql',
    'db.query.text': "SELECT 'SECRET'",
    'db.statement': "SELECT 'SECRET'",
    'db.postgresql.values': ['SECRET'],
    'db.connection_string': 'postgresql://u:SECRET@h/db',
    'webhook.event_id': '7',
  },
  events: [
    {
      name: 'exception',
      time: [0, 0],
      attributes: {
        'exception.type': 'QueryFailedError',
        'exception.message': 'SECRET',
        'exception.stacktrace': 'SECRET',
      },
    },
  ],
  status: { code: 2, message: 'invalid input syntax: SECRET' },
} as unknown as ReadableSpan;

function exportThrough(spans: ReadableSpan[]): ReadableSpan[] {
  const exported: ReadableSpan[] = [];
  const inner: SpanExporter = {
    export: (batch: ReadableSpan[], done: (result: ExportResult) => void) => {
      exported.push(...batch);
      done({ code: 0 });
    },
    shutdown: () => Promise.resolve(),
  };
  new ScrubbingExporter(inner).export(spans, () => undefined);
  return exported;
}

describe('ScrubbingExporter (contract section 12)', () => {
  it("passes the service's own spans (publish, webhook.attempt) as they are", () => {
    const own = { ...span, instrumentationScope: { name: 'partner-integration-service' } } as ReadableSpan;
    expect(exportThrough([own])[0]).toBe(own);
  });

  it('exports only the allowed attributes, no exception message, no status message', () => {
    const [out] = exportThrough([span]);
    expect(out.attributes).toEqual({
      'http.request.method': 'GET',
      'http.route': '/webhooks/subscriptions/:id',
      'http.response.status_code': 200,
      'db.system.name': 'postgresql',
      'webhook.event_id': '7',
    });
    expect(out.events).toEqual([
      { name: 'exception', time: [0, 0], attributes: { 'exception.type': 'QueryFailedError' } },
    ]);
    expect(out.status).toEqual({ code: 2 });
    expect(
      JSON.stringify({ ...out, attributes: out.attributes, events: out.events, status: out.status }),
    ).not.toContain('SECRET');
    // A copy: its methods still answer, the span itself is untouched.
    expect(out.spanContext().spanId).toBe('b'.repeat(16));
    expect(span.attributes['url.query']).toBe('token=SECRET');
  });
});
