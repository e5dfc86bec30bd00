/* global process, console, Buffer */
// A local OTLP/HTTP receiver that prints every span the service exports, one line each: no
// collector to install. Run it, then start the service pointed at it with the JSON protocol:
//   node scripts/print-traces.mjs [PORT]     (default 4318, OTLP/HTTP's port)
//   OTEL_EXPORTER_OTLP_ENDPOINT=http://localhost:4318 OTEL_EXPORTER_OTLP_PROTOCOL=http/json npm start
// Each line: trace id, span id ← parent span id, name, duration, attributes (and links).
import { createServer } from 'node:http';

const port = Number(process.argv[2] ?? 4318);
const valueOf = (v) => v.stringValue ?? v.intValue ?? v.boolValue ?? v.doubleValue;
const attributesOf = (list = []) => Object.fromEntries(list.map((a) => [a.key, valueOf(a.value)]));

function print(span) {
  const ms = (Number(BigInt(span.endTimeUnixNano) - BigInt(span.startTimeUnixNano)) / 1e6).toFixed(1);
  const links = (span.links ?? []).map((l) => `${l.traceId}/${l.spanId}`);
  const parent = span.parentSpanId ? ` ← ${span.parentSpanId}` : '';
  console.log(
    `${span.traceId} ${span.spanId}${parent} ${span.name} ${ms} ms ${JSON.stringify(attributesOf(span.attributes))}` +
      (links.length > 0 ? ` links ${links.join(' ')}` : ''),
  );
}

createServer((req, res) => {
  const chunks = [];
  req.on('data', (c) => chunks.push(c));
  req.on('end', () => {
    if (!String(req.headers['content-type']).startsWith('application/json')) {
      console.error('not JSON: set OTEL_EXPORTER_OTLP_PROTOCOL=http/json on the service');
    } else {
      const body = JSON.parse(Buffer.concat(chunks).toString('utf8'));
      for (const { scopeSpans } of body.resourceSpans ?? [])
        for (const { spans } of scopeSpans) for (const span of spans) print(span);
    }
    res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
  });
}).listen(port, () => console.error(`OTLP/HTTP on http://localhost:${port}/v1/traces`));
