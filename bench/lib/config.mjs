import { readFileSync } from 'node:fs';
import { URL } from 'node:url';

// Sizes, names and the few facts about the service the bench depends on, in one place.

/** Table of delivery records (migrations/1763700200000-CreateDispatcher.ts): one row per attempt. */
export const DELIVERIES_TABLE = 'webhook_deliveries';

export const SIZES = {
  full: {
    subscriptions: 100_000,
    tenants: 1_000,
    tenantSubscriptions: 1_000,
    connections: 32,
    durationS: 10,
    warmupS: 2,
    dispatchEvents: 100,
    dispatchSubscriptions: 200,
    /** Service and baseline bursts alternate this many times; the figure is the median round. */
    dispatchRounds: 5,
    /** Events of the warm-up burst each side gets first (JIT, heap growth, connections). */
    dispatchWarmEvents: 20,
    /** Warm-up bursts of dispatchWarmEvents each side gets, after warmupApiS of publishes (figures/dispatch.mjs). */
    dispatchWarmBursts: 3,
    warmupApiS: 5,
    pacedRatePerS: 200,
    pacedSubscriptions: 10,
    pacedDurationS: 10,
    /** Both sides of dispatch-paced first get this much of the same stream (as dispatch-paced-1000). */
    pacedWarmS: 3,
    /** dispatch-paced-1000: 10 events a second to 100 subscriptions for 30 s, after a warm-up at that pace. */
    paced1000RatePerS: 1_000,
    paced1000Subscriptions: 100,
    paced1000DurationS: 30,
    paced1000WarmS: 3,
    fanOut: 5_000,
    /** Jobs pending for the hanging receiver while another tenant's stream is measured. */
    backlogJobs: 50_000,
    backlogRatePerS: 50,
    /** Each of the two paced runs (without, then with the backlog). */
    backlogDurationS: 20,
    /** Full-speed dispatch; the first and the last third are compared. */
    sustainedS: 180,
    /** Deliveries published ahead of the receipts: the queue never runs dry and stays this small. */
    sustainedAheadDeliveries: 4_000,
    /** Delivery records of the history figure's subscription, and in the whole table. */
    historyRecords: 200_000,
    historyTotal: 2_000_000,
    waitTimeoutS: 180,
  },
  quick: {
    subscriptions: 10_000,
    tenants: 100,
    tenantSubscriptions: 1_000,
    connections: 32,
    durationS: 2,
    warmupS: 0.3,
    dispatchEvents: 20,
    dispatchSubscriptions: 50,
    dispatchRounds: 1,
    dispatchWarmEvents: 2,
    dispatchWarmBursts: 1,
    warmupApiS: 0.5,
    pacedRatePerS: 200,
    pacedSubscriptions: 10,
    pacedDurationS: 1.5,
    pacedWarmS: 0,
    // Left out of --quick unless named in --only (dispatch-group.mjs): then this short variant.
    paced1000RatePerS: 1_000,
    paced1000Subscriptions: 100,
    paced1000DurationS: 2,
    paced1000WarmS: 0.5,
    fanOut: 1_000,
    backlogJobs: 2_000,
    backlogRatePerS: 50,
    backlogDurationS: 3,
    sustainedS: 9,
    sustainedAheadDeliveries: 1_000,
    historyRecords: 20_000,
    historyTotal: 200_000,
    waitTimeoutS: 15,
    /** CI runs --quick as a smoke test within 60 s: figures not started by then are skipped. */
    budgetS: 48,
  },
};

/** Targets of issue 6 (and of issue 16: backlog, sustained, history; issue 28: the paced p99s). */
export const TARGETS = {
  apiRatio: 0.7,
  apiP99Ms: 25,
  dispatchRatio: 0.85,
  dispatchPerS: 2_500,
  pacedP50Ms: 20,
  pacedP99Ms: 20,
  /** Issue 28: dispatch-paced-1000. */
  paced1000P50Ms: 15,
  paced1000P99Ms: 50,
  fanOutLastMs: 3_000,
  memoryMb: 200,
  backlogP50Ms: 50,
  backlogP99Ms: 1_000,
  sustainedRatio: 0.9,
  historyRatio: 0.8,
  publishIdempotentRatio: 0.9,
};

const VERSION = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')).version;

/**
 * The service caps in-flight deliveries per receiver (host:port) at ceil(WEBHOOK_CONCURRENCY / 4)
 * (src/dispatcher/webhook-worker.service.ts), so a single receiver origin would hold it to 16 of its
 * 64 slots. The receiver process listens on this many ports and subscriptions are spread over them,
 * so the service and the raw clients both run at the full concurrency. `--receiver-ports 1` shows
 * the single-origin case.
 */
export const RECEIVER_PORTS = 4;

/**
 * The delivery HTTP client of src/dispatcher/webhook-sender.service.ts, mirrored for the raw-client
 * baseline: the same https.Agent options (allowPrivateNetworks=true, no proxy, Node's CAs plus
 * NODE_EXTRA_CA_CERTS), the same axios instance (these options, and the global defaults the service
 * removes listed in `removedDefaults`), the same headers, the same total time-out
 * (an AbortController and a timer per request) and the same capped read of the response body.
 */
export const DISPATCH_CLIENT = {
  httpsAgent: { keepAlive: true, scheduling: 'lifo' },
  axios: {
    method: 'POST',
    proxy: false,
    maxRedirects: 0,
    responseType: 'stream',
    decompress: false,
    validateStatus: () => true,
    transformRequest: [(data) => data],
  },
  /** Instance defaults the service drops after axios.create (`headers` is replaced by {}). */
  removedDefaults: ['xsrfCookieName', 'xsrfHeaderName', 'transitional'],
  timeoutMs: 30_000,
  maxResponseBytes: 64 * 1024,
  headers: {
    'Content-Type': 'application/json',
    'User-Agent': `partner-integration-service/${VERSION}`,
    'Accept-Encoding': false,
  },
};
