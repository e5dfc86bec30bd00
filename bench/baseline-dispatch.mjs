/* global process, performance, setTimeout */
// Dispatch baselines, in their own process: the same HTTP POSTs the service makes (same bodies,
// same headers, same receiver, same concurrency), with no database.
//   client=axios   axios with the keep-alive https agent settings of src/dispatcher (lib/axios-sender.mjs)
//   client=undici  undici's Agent, for context
// The bench sends { cmd: 'run', client, concurrency, urls, events: [{ code, body }], paceMs }:
// every event goes to every url; with paceMs event k is released at start + k * paceMs, else all at
// once. The answer carries the release time of each event (the stand-in for its publish time).
import { Agent, request } from 'undici';
import { serveIpc } from './lib/processes.mjs';
import { axiosSender } from './lib/axios-sender.mjs';
import { DISPATCH_CLIENT } from './lib/config.mjs';

const now = () => performance.timeOrigin + performance.now();
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

function undiciSender(concurrency) {
  const dispatcher = new Agent({
    connections: concurrency,
    keepAliveTimeout: 60_000,
    headersTimeout: DISPATCH_CLIENT.timeoutMs,
    bodyTimeout: DISPATCH_CLIENT.timeoutMs,
  });
  return {
    send: async (url, body) => {
      const res = await request(url, { method: 'POST', body, headers: DISPATCH_CLIENT.headers, dispatcher });
      await res.body.dump();
      return res.statusCode;
    },
    close: () => dispatcher.close(),
  };
}

// One sender per client for the life of this process: a warm-up run leaves its keep-alive
// connections open for the measured run, as the service's agent does.
const senders = {};

/**
 * The posts of one run: every released event goes to every url, taken by `concurrency` workers in
 * order; the release time of each event and the outcomes are counted here.
 */
function postQueue(sender, urls, eventCount) {
  const queue = [];
  let head = 0;
  let waiting = [];
  let released = 0;
  const tally = { ok: 0, failed: 0, firstError: null, releases: {} };

  const wake = () => {
    const w = waiting;
    waiting = [];
    for (const resolve of w) resolve();
  };
  const release = (event) => {
    tally.releases[event.code] = now();
    for (const url of urls) queue.push([url, event.body]);
    released++;
    wake();
  };
  const postOne = async (url, body) => {
    try {
      const status = await sender.send(url, body);
      if (status >= 200 && status < 300) tally.ok++;
      else {
        tally.failed++;
        tally.firstError ??= `HTTP ${status}`;
      }
    } catch (error) {
      tally.failed++;
      tally.firstError ??= String(error?.message ?? error);
    }
  };
  const worker = async () => {
    for (;;) {
      if (head < queue.length) {
        const [url, body] = queue[head];
        queue[head++] = undefined;
        await postOne(url, body);
        continue;
      }
      if (released === eventCount) return;
      await new Promise((resolve) => waiting.push(resolve));
    }
  };
  return { release, wake, worker, tally };
}

async function run({ client, concurrency, urls, events, paceMs }) {
  senders[client] ??= client === 'undici' ? undiciSender(concurrency) : axiosSender();
  const posts = postQueue(senders[client], urls, events.length);
  const start = now();
  const workers = Array.from({ length: concurrency }, posts.worker);
  if (paceMs) {
    for (let k = 0; k < events.length; k++) {
      const wait = start + k * paceMs - now();
      if (wait > 1) await sleep(wait);
      posts.release(events[k]);
    }
  } else {
    for (const event of events) posts.release(event);
  }
  posts.wake();
  await Promise.all(workers);
  const end = now();
  return { start, end, ...posts.tally };
}

serveIpc({ run });
process.send?.({ type: 'ready' });
