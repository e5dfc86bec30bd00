// A minimal OTLP/HTTP receiver for the bench, in the bench's process (its CPU counts as `bench`, not
// as the service's): it accepts POST /v1/traces, counts requests and bytes, answers 200 and keeps
// nothing, as a collector that takes the spans off the service would.
import { createServer } from 'node:http';

export async function startOtlpSink() {
  const stats = { requests: 0, bytes: 0, contentTypes: new Set() };
  const server = createServer((req, res) => {
    req.on('data', (chunk) => (stats.bytes += chunk.length));
    req.on('end', () => {
      stats.requests++;
      stats.contentTypes.add(req.headers['content-type']);
      res.writeHead(200, { 'content-type': req.headers['content-type'] ?? 'application/json' }).end();
    });
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${server.address().port}`,
    stats,
    close: () => {
      server.closeAllConnections();
      return new Promise((resolve) => server.close(resolve));
    },
  };
}
