/* global setImmediate */
// A worker for delivery-thread-alone.mjs: runs the service's built delivery thread
// (dist/src/dispatcher/delivery-thread.js, workerData.client 'service') or the raw-axios sender
// ('axios') behind the same messages (delivery-thread.protocol.ts: `send` in, `results` out), and
// counts its own garbage collections (answering `gc`).
import { createRequire } from 'node:module';
import { PerformanceObserver, constants } from 'node:perf_hooks';
import { parentPort, workerData } from 'node:worker_threads';
import { axiosSender } from './axios-sender.mjs';

const collections = { scavenges: 0, markCompacts: 0 };
new PerformanceObserver((list) => {
  for (const entry of list.getEntries()) {
    if (entry.detail.kind === constants.NODE_PERFORMANCE_GC_MINOR) collections.scavenges++;
    else if (entry.detail.kind === constants.NODE_PERFORMANCE_GC_MAJOR) collections.markCompacts++;
  }
}).observe({ entryTypes: ['gc'] });

parentPort.on('message', (message) => {
  if (message.type === 'gc') parentPort.postMessage({ type: 'gc', collections: { ...collections } });
});

if (workerData.client === 'service') {
  createRequire(import.meta.url)(workerData.script);
} else {
  const sender = axiosSender(workerData.ca ? { ca: workerData.ca } : {});
  let results = [];
  let flushScheduled = false;
  const flush = () => {
    flushScheduled = false;
    parentPort.postMessage({ type: 'results', results });
    results = [];
  };
  const finished = (result) => {
    results.push(result);
    if (!flushScheduled) {
      flushScheduled = true;
      setImmediate(flush);
    }
  };
  parentPort.on('message', (message) => {
    if (message.type !== 'send') return;
    for (const { id, request } of message.jobs) {
      sender.send(request.url, request.payload).then(
        (status) => finished({ id, status: status >= 200 && status < 300 ? 'SUCCESS' : 'FAILED' }),
        () => finished({ id, status: 'FAILED' }),
      );
    }
  });
  parentPort.postMessage({ type: 'ready' });
}
