/* global process, performance */
// The webhook receiver of the dispatch figures, in its own process: node:https with keep-alive,
// answering 200 at once and noting when each delivery arrived (epoch ms, sub-millisecond), plus one
// more port that never answers (the hanging receiver of the backlog figure).
// The bench talks to it over the IPC channel: reset, stats, receipts, hung, release.
//
// env: RECEIVER_KEY, RECEIVER_CERT (PEM file paths), RECEIVER_PORT_COUNT
import { Buffer } from 'node:buffer';
import { readFileSync } from 'node:fs';
import { createServer } from 'node:https';
import { serveIpc } from './lib/processes.mjs';

const now = () => performance.timeOrigin + performance.now();

let receipts = []; // [code, receivedAt]
let count = 0;
let first = null;
let last = null;
let malformed = 0;
const userAgents = new Set();

const OK_BODY = Buffer.from('{"received":true}');

const tls = { key: readFileSync(process.env.RECEIVER_KEY), cert: readFileSync(process.env.RECEIVER_CERT) };

function onRequest(req, res) {
  const chunks = [];
  req.on('data', (chunk) => chunks.push(chunk));
  req.on('end', () => {
    const at = now();
    let code = null;
    try {
      code = JSON.parse(Buffer.concat(chunks).toString('utf8'))?.licence?.code ?? null;
    } catch {
      malformed++;
    }
    count++;
    first ??= at;
    last = at;
    receipts.push([code, at]);
    const agent = req.headers['user-agent'];
    if (agent && userAgents.size < 10) userAgents.add(agent);
    res.writeHead(200, { 'content-type': 'application/json', 'content-length': OK_BODY.length });
    res.end(OK_BODY);
  });
}

// The hanging receiver: reads each request and never answers it, until `release` drops the
// connections (the service's own time-out would otherwise end them).
const hung = new Set();
let hungTotal = 0;
const hangServer = createServer({ ...tls, keepAliveTimeout: 65_000, requestTimeout: 0 }, (req) => {
  hungTotal++;
  hung.add(req.socket);
  req.socket.once('close', () => hung.delete(req.socket));
  req.resume();
});
hangServer.headersTimeout = 66_000;

// Several ports, one process: each port is a distinct receiver origin for the service (see
// RECEIVER_PORTS in lib/config.mjs).
const servers = Array.from({ length: Number(process.env.RECEIVER_PORT_COUNT ?? 1) }, () => {
  const server = createServer({ ...tls, keepAliveTimeout: 65_000, requestTimeout: 0 }, onRequest);
  server.keepAliveTimeout = 65_000;
  server.headersTimeout = 66_000;
  return server;
});

serveIpc({
  reset: () => {
    receipts = [];
    count = 0;
    first = null;
    last = null;
    malformed = 0;
    return {};
  },
  stats: () => ({ count, first, last, malformed, userAgents: [...userAgents] }),
  receipts: () => ({ count, first, last, malformed, receipts }),
  hung: () => ({ open: hung.size, total: hungTotal }),
  release: () => {
    const released = hung.size;
    for (const socket of hung) socket.destroy();
    hung.clear();
    return { released };
  },
});

const listen = (server) =>
  new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(server.address().port)));
void Promise.all([...servers.map(listen), listen(hangServer)]).then((ports) =>
  process.send?.({ type: 'ready', ports: ports.slice(0, -1), hangPort: ports.at(-1) }),
);
