import { createServer, IncomingMessage, Server, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/** One span as OTLP/JSON carries it, its attributes flattened to a record. */
export interface ExportedSpan {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  /** OTLP SpanKind: 1 internal, 2 server, 3 client, 4 producer, 5 consumer. */
  kind: number;
  attributes: Record<string, unknown>;
  links: Array<{ traceId: string; spanId: string }>;
  scope: string;
}

interface OtlpValue {
  stringValue?: string;
  intValue?: string | number;
  boolValue?: boolean;
  doubleValue?: number;
}
type OtlpAttributes = Array<{ key: string; value: OtlpValue }> | undefined;
interface OtlpSpan extends Omit<ExportedSpan, 'attributes' | 'scope'> {
  attributes?: OtlpAttributes;
}
interface OtlpBody {
  resourceSpans: Array<{ scopeSpans: Array<{ scope: { name: string }; spans: OtlpSpan[] }> }>;
}

const valueOf = (v: OtlpValue): unknown =>
  v.stringValue ?? (v.intValue !== undefined ? Number(v.intValue) : (v.boolValue ?? v.doubleValue));

/**
 * An OTLP/HTTP receiver (POST /v1/traces), as an OpenTelemetry Collector would be: it keeps every
 * request as received (content type and raw bytes) and answers 200.
 */
export class OtlpSink {
  readonly requests: Array<{ path: string; contentType: string; raw: Buffer }> = [];

  private constructor(private readonly server: Server) {}

  static async start(): Promise<OtlpSink> {
    const server = createServer();
    const sink = new OtlpSink(server);
    server.on('request', (req: IncomingMessage, res: ServerResponse) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        const contentType = req.headers['content-type'] ?? '';
        sink.requests.push({ path: req.url ?? '', contentType, raw: Buffer.concat(chunks) });
        res.writeHead(200, { 'content-type': contentType || 'application/json' }).end('{}');
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    return sink;
  }

  get url(): string {
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  /** Everything received, as text: what a secret must never be part of. */
  text(): string {
    return this.requests.map((r) => r.raw.toString('latin1')).join('\n');
  }

  /** The spans of every JSON request received so far. */
  spans(): ExportedSpan[] {
    const spans: ExportedSpan[] = [];
    for (const request of this.requests) {
      if (!request.contentType.startsWith('application/json')) continue;
      const body = JSON.parse(request.raw.toString('utf8')) as OtlpBody;
      for (const { scopeSpans } of body.resourceSpans)
        for (const { scope, spans: batch } of scopeSpans)
          for (const span of batch)
            spans.push({
              ...span,
              links: span.links ?? [],
              scope: scope.name,
              attributes: Object.fromEntries((span.attributes ?? []).map((a) => [a.key, valueOf(a.value)])),
            });
    }
    return spans;
  }

  /** Polls until a span matches `found`; fails after `timeoutMs`. */
  async waitForSpan(
    what: string,
    found: (span: ExportedSpan) => boolean,
    timeoutMs = 15_000,
  ): Promise<ExportedSpan> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const span = this.spans().find(found);
      if (span) return span;
      if (Date.now() > deadline) throw new Error(`no exported span ${what} after ${timeoutMs} ms`);
      await new Promise((r) => setTimeout(r, 50));
    }
  }

  close(): Promise<void> {
    this.server.closeAllConnections();
    return new Promise((resolve) => this.server.close(() => resolve()));
  }
}
