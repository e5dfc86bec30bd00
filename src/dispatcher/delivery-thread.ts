import { parentPort, workerData } from 'node:worker_threads';
import { DeliveryClient, DeliveryClientOptions } from './delivery-client';
import type { ThreadCommand, ThreadResult } from './delivery-thread.protocol';

/**
 * The delivery thread (started by WebhookSender): runs the HTTP side of every delivery on its own
 * event loop, so the POSTs (TLS, the HTTP client) and the main thread's work (the API, claims and
 * records in PostgreSQL) use both cores. Results go back in batches, one message per turn of this
 * thread's event loop.
 */
const port = parentPort!;
const client = new DeliveryClient(workerData as DeliveryClientOptions);
let results: ThreadResult[] = [];
let flushScheduled = false;

function flush(): void {
  flushScheduled = false;
  const batch = results;
  results = [];
  port.postMessage({ type: 'results', results: batch });
}

function finished(result: ThreadResult): void {
  results.push(result);
  if (!flushScheduled) {
    flushScheduled = true;
    setImmediate(flush);
  }
}

port.on('message', (command: ThreadCommand) => {
  switch (command.type) {
    case 'send':
      for (const { id, request, startBy } of command.jobs) {
        // This thread's own backlog (a burst of other deliveries) can hold a job past its slot.
        if (startBy !== undefined && Date.now() > startBy) {
          finished({ id, tooLate: true });
          continue;
        }
        void client
          .send(request)
          .then((outcome) =>
            finished(
              'interrupted' in outcome
                ? { id, interrupted: true }
                : { id, ...outcome, sentAt: outcome.sentAt.getTime() },
            ),
          );
      }
      break;
    case 'interrupt':
      client.interruptAll();
      break;
    case 'close':
      client.close();
      port.close(); // nothing else holds this thread: it ends
      break;
  }
});

port.postMessage({ type: 'ready' });
