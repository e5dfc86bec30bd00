/* global process, performance, queueMicrotask, URL */
// A diagnostic beside the figures: what the service's delivery thread costs per POST with nothing
// else of the service around it, against raw axios doing the same in the same kind of thread. No
// database and no claims: this process's main thread only hands the requests over (one message per
// turn of its event loop, as DeliveryThread does) and takes the outcomes back, keeping
// --concurrency posts in flight to the bench's HTTPS receiver (4 origins, its own process). Rounds
// alternate service, axios; each round is a new worker whose old generation is limited to
// --old-space-mb (the service's delivery thread: 64). Node options given to this script (such as
// npm start's --max-semi-space-size=8) apply to both. Run `npm run build` first.
//
//   node --max-semi-space-size=8 bench/delivery-thread-alone.mjs [--posts 60000] [--rounds 2] [--old-space-mb 64]
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { parseArgs } from 'node:util';
import { Worker } from 'node:worker_threads';
import { writeReceiverCertificates } from './lib/certs.mjs';
import { CpuMeter } from './lib/cpu.mjs';
import { RECEIVER_PORTS } from './lib/config.mjs';
import { cleanupAll, installExitHandlers, makeTempDir } from './lib/processes.mjs';
import { startReceiver } from './lib/receiver-process.mjs';

const { values: args } = parseArgs({
  options: {
    posts: { type: 'string', default: '60000' },
    warmup: { type: 'string', default: '5000' },
    rounds: { type: 'string', default: '2' },
    concurrency: { type: 'string', default: '64' },
    'old-space-mb': { type: 'string', default: '64' },
  },
});
const POSTS = Number(args.posts);
const WARMUP = Number(args.warmup);
const CONCURRENCY = Number(args.concurrency);
// The service's own name for the built script (run `npm run build` first).
const { defaultDeliveryThreadScript } = createRequire(import.meta.url)(
  '../dist/src/dispatcher/delivery-thread.script.js',
);

/** A licence event's body, of the size the service sends. */
const PAYLOAD = JSON.stringify({
  eventType: 'LICENCE_CREATED_SUCCESS',
  tenant: 'bench-main',
  timestamp: new Date().toISOString(),
  licence: { code: 'LIC-0000001', product: 'bench', seats: 25, validUntil: '2027-12-31' },
  details: 'x'.repeat(300),
});

/** A new worker running `client`, once it is ready. */
async function startWorker(client, ca) {
  const worker = new Worker(new URL('./lib/posting-thread.mjs', import.meta.url), {
    workerData: {
      client,
      script: defaultDeliveryThreadScript.filename,
      // DeliveryClientOptions, as WebhookSender builds them
      timeoutMs: 30_000,
      allowPrivateNetworks: true,
      ca: [ca],
      userAgent: 'partner-integration-service/bench',
    },
    resourceLimits: { maxOldGenerationSizeMb: Number(args['old-space-mb']) },
  });
  await new Promise((resolve) => worker.once('message', resolve)); // ready
  return worker;
}

/** The worker's collections so far: { scavenges, markCompacts }. */
function collections(worker) {
  return new Promise((resolve) => {
    const onMessage = (message) => {
      if (message.type !== 'gc') return;
      worker.off('message', onMessage);
      resolve(message.collections);
    };
    worker.on('message', onMessage);
    worker.postMessage({ type: 'gc' });
  });
}

/**
 * WARMUP + POSTS posts through `worker`, CONCURRENCY at a time, handed over in one message per turn
 * of this thread's event loop; resolves with what `onWarm` returned once WARMUP were done.
 */
function postAll(worker, urls, onWarm) {
  const total = WARMUP + POSTS;
  let sent = 0;
  let done = 0;
  let unsent = [];
  let warm;
  const send = () => {
    const id = ++sent;
    const request = {
      url: urls[id % urls.length],
      payload: PAYLOAD,
      headerName: null,
      headerValue: null,
      webhookId: `evt_${id}`,
      signingKeys: [],
    };
    if (unsent.push({ id, request }) === 1)
      queueMicrotask(() => {
        worker.postMessage({ type: 'send', jobs: unsent });
        unsent = [];
      });
  };
  return new Promise((resolve, reject) => {
    worker.on('message', (message) => {
      if (message.type !== 'results') return;
      for (const result of message.results) {
        if (result.status !== 'SUCCESS') return reject(new Error(`a post failed: ${JSON.stringify(result)}`));
        if (++done === WARMUP) warm = onWarm();
        if (sent < total) send();
      }
      if (done === total) resolve(warm);
    });
    for (let i = 0; i < CONCURRENCY; i++) send();
  });
}

/** One round: `client` in a new worker, WARMUP posts, then POSTS measured. */
async function round(client, urls, ca) {
  const worker = await startWorker(client, ca);
  const meter = new CpuMeter({ bench: () => process.pid });
  const measure = await postAll(worker, urls, () => ({
    cpu: meter.start(),
    at: performance.now(),
    gc: collections(worker),
  }));
  const seconds = (performance.now() - measure.at) / 1000;
  const cpu = measure.cpu.stop().threads.bench;
  const [before, after] = [await measure.gc, await collections(worker)];
  await worker.terminate();
  const perPost = (s) => ((s * 1000) / POSTS).toFixed(4);
  return {
    client,
    postsPerS: Math.round(POSTS / seconds),
    msPerPost: { main: perPost(cpu.main), thread: perPost(cpu.busiest), rest: perPost(cpu.rest) },
    scavenges: after.scavenges - before.scavenges,
    markCompacts: after.markCompacts - before.markCompacts,
  };
}

installExitHandlers();
try {
  const certs = writeReceiverCertificates(makeTempDir('delivery-thread-alone-'));
  const { ports } = await startReceiver(certs, RECEIVER_PORTS).ready;
  const urls = ports.map((port) => `https://127.0.0.1:${port}/webhook`);
  const ca = readFileSync(certs.ca, 'utf8');
  for (let r = 1; r <= Number(args.rounds); r++)
    for (const client of ['service', 'axios'])
      process.stdout.write(`${JSON.stringify({ round: r, ...(await round(client, urls, ca)) })}\n`);
} finally {
  await cleanupAll();
}
