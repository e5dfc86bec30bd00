/* global setTimeout, clearTimeout, AbortController, URL */
// The raw-axios sender of the dispatch baselines: the service's delivery client without the service
// (the same https.Agent options, axios instance, headers, total time-out and capped read of the
// response; lib/config.mjs's DISPATCH_CLIENT). Used by baseline-dispatch.mjs and, in a worker, by
// delivery-thread-alone.mjs.
import https from 'node:https';
import axios from 'axios';
import { DISPATCH_CLIENT } from './config.mjs';

/** Reads and drops at most `cap` bytes of the response, as the service does. */
function discardBody(stream, cap) {
  return new Promise((resolve) => {
    let read = 0;
    const done = () => {
      stream.removeAllListeners('data');
      resolve();
    };
    stream.on('data', (chunk) => {
      read += chunk.length;
      if (read > cap) {
        stream.destroy();
        done();
      }
    });
    stream.once('end', done);
    stream.once('error', done);
    stream.once('close', done);
  });
}

/** `send(url, body)` resolves with the HTTP status; `close()` ends the kept-alive connections. */
export function axiosSender(agentOptions = {}) {
  const httpsAgent = new https.Agent({ ...DISPATCH_CLIENT.httpsAgent, ...agentOptions });
  const client = axios.create({ ...DISPATCH_CLIENT.axios, httpsAgent });
  client.defaults.headers = {};
  for (const key of DISPATCH_CLIENT.removedDefaults) delete client.defaults[key];
  return {
    send: async (url, body) => {
      const controller = new AbortController();
      const timer = setTimeout(() => controller.abort(), DISPATCH_CLIENT.timeoutMs);
      try {
        const response = await client.request({
          url: new URL(url).href,
          data: body,
          headers: { ...DISPATCH_CLIENT.headers },
          signal: controller.signal,
        });
        await discardBody(response.data, DISPATCH_CLIENT.maxResponseBytes);
        return response.status;
      } finally {
        clearTimeout(timer);
      }
    },
    close: async () => httpsAgent.destroy(),
  };
}
