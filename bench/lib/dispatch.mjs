// Dispatch runs: publishing licence events and waiting for their deliveries, by the service or by
// a baseline client.
import { DELIVERIES_TABLE, TARGETS } from './config.mjs';
import { ipcRequest } from './processes.mjs';
import { latencySummary, round } from './report.mjs';
import { call } from './service.mjs';
import { DISPATCH_SIGNING_TARGET } from '../figures/dispatch-signing.mjs';
import { ctx, EVENT_TYPE, licence, now, size, sleep } from './run-context.mjs';

export async function publish(tenant, code) {
  const res = await call(ctx.service.base, 'POST', '/admin/licence-events', {
    token: ctx.adminToken,
    body: { eventType: EVENT_TYPE, tenant, licence: licence(code) },
  });
  if (res.status !== 202) throw new Error(`publish answered ${res.status}: ${res.text.slice(0, 300)}`);
  return res.body;
}

export async function maxDeliveryId() {
  if (!ctx.deliveriesTable) return 0;
  const { rows } = await ctx.pool.query(
    `SELECT coalesce(max(id), 0)::bigint AS max FROM "${DELIVERIES_TABLE}"`,
  );
  return rows[0].max;
}

/**
 * Resolves when `expected` delivery records (ids above `afterId`) of the tenant's subscriptions are
 * committed, with the time that was seen. The receiver's count is watched first (cheap); the table
 * is polled slowly until then and every 10 ms after, so polling hardly loads the database.
 * Without the table, the receiver's count stands in (noted).
 */
export async function waitForDeliveries(range, afterId, expected, timeoutS) {
  const deadline = now() + timeoutS * 1000;
  let lastDbPoll = 0;
  for (;;) {
    const t = now();
    const received = (await ipcRequest(ctx.receiver, { cmd: 'stats' })).count;
    if (!ctx.deliveriesTable) {
      if (received >= expected) return { at: t, records: null, failed: null, received };
    } else if (received >= expected || t - lastDbPoll > 250) {
      lastDbPoll = t;
      const { rows } = await ctx.pool.query(
        `SELECT count(*)::int AS n, count(*) FILTER (WHERE status <> 'SUCCESS')::int AS failed
           FROM "${DELIVERIES_TABLE}" WHERE id > $1 AND subscription_id BETWEEN $2 AND $3`,
        [afterId, range.min, range.max],
      );
      if (rows[0].n >= expected) return { at: now(), records: rows[0].n, failed: rows[0].failed, received };
    }
    if (now() > deadline) return { timedOut: true, at: now(), received };
    await sleep(received >= expected ? 10 : 20);
  }
}

/** Publish-to-receipt latencies: receipt time minus the publish (release) time of its event. */
export function receiptLatencies(receipts, releaseOf) {
  const values = [];
  let unknown = 0;
  for (const [code, at] of receipts) {
    const t = releaseOf[code];
    if (t === undefined) unknown++;
    else values.push(at - t);
  }
  return { ...latencySummary(values), unknown };
}

export async function resetReceiver() {
  await ipcRequest(ctx.receiver, { cmd: 'reset' });
}

/** Publishes `codes` (at most `parallel` in flight, or one every `paceMs`), waits for every record. */
export async function runServiceDispatch(range, codes, { paceMs, parallel = 4 } = {}) {
  await resetReceiver();
  const afterId = await maxDeliveryId();
  const publishedAt = {};
  const acks = [];
  const expected = codes.length * range.count;
  const start = now();
  if (paceMs) {
    const inFlight = [];
    for (let k = 0; k < codes.length; k++) {
      const wait = start + k * paceMs - now();
      if (wait > 1) await sleep(wait);
      publishedAt[codes[k]] = now();
      inFlight.push(
        publish(range.tenant, codes[k]).then((r) => acks.push([r, now() - publishedAt[codes[k]]])),
      );
    }
    await Promise.all(inFlight);
  } else {
    let next = 0;
    const publisher = async () => {
      while (next < codes.length) {
        const code = codes[next++];
        publishedAt[code] = now();
        const r = await publish(range.tenant, code);
        acks.push([r, now() - publishedAt[code]]);
      }
    };
    await Promise.all(Array.from({ length: parallel }, publisher));
  }
  const published = now();
  for (const [r] of acks)
    if (r.matchedSubscriptions !== range.count)
      throw new Error(`an event matched ${r.matchedSubscriptions} subscriptions, expected ${range.count}`);
  const done = await waitForDeliveries(range, afterId, expected, size.waitTimeoutS);
  const { receipts, first, last } = await ipcRequest(ctx.receiver, { cmd: 'receipts' }, 120_000);
  return {
    start,
    published,
    afterId,
    publishedAt,
    done,
    expected,
    first,
    last,
    latency: receiptLatencies(receipts, publishedAt),
    publishAck: latencySummary(acks.map(([, ms]) => ms)),
    received: receipts.length,
  };
}

export async function runBaselineDispatch(client, range, codes, { paceMs } = {}) {
  const timestamp = new Date().toISOString();
  const events = codes.map((code) => ({
    code,
    body: JSON.stringify({
      eventType: EVENT_TYPE,
      timestamp,
      tenant: range.tenant,
      licence: licence(code),
      error: null,
    }),
  }));
  await resetReceiver();
  const r = await ipcRequest(
    ctx.dispatchBaseline,
    { cmd: 'run', client, concurrency: ctx.concurrency, urls: range.urls, events, paceMs },
    size.waitTimeoutS * 1000 + 60_000,
  );
  const { receipts, first, last } = await ipcRequest(ctx.receiver, { cmd: 'receipts' }, 120_000);
  const total = codes.length * range.count;
  return {
    value: round(total / ((r.end - r.start) / 1000)),
    unit: 'deliveries/s',
    ok: r.ok,
    failed: r.failed,
    firstError: r.firstError,
    start: r.start,
    end: r.end,
    first,
    last,
    latency: receiptLatencies(receipts, r.releases),
  };
}

export async function dispatchAvailable() {
  try {
    const res = await call(ctx.service.base, 'POST', '/admin/licence-events', {
      token: ctx.adminToken,
      body: { eventType: EVENT_TYPE, tenant: 'bench-nobody', licence: licence('BENCH-PROBE') },
    });
    if (res.status !== 202)
      return `POST /admin/licence-events answered ${res.status}${res.body?.message ? ` (${res.body.message})` : ''}`;
    return undefined;
  } catch (error) {
    return `POST /admin/licence-events failed: ${error.message}`;
  }
}

export const median = (values) =>
  values.length === 0 ? null : [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];

export const codesFor = (prefix, n) => Array.from({ length: n }, (_, k) => `BENCH-${prefix}-${k + 1}`);

export function dispatchTargets() {
  return {
    dispatch: `≥${TARGETS.dispatchRatio}× axios and ≥${TARGETS.dispatchPerS.toLocaleString('en-US')}/s`,
    'dispatch-signing': `signed ≥${DISPATCH_SIGNING_TARGET}× unsigned`,
    'dispatch-paced': `p50 ≤${TARGETS.pacedP50Ms} ms, p99 ≤${TARGETS.pacedP99Ms} ms at ${size.pacedRatePerS}/s`,
    'dispatch-paced-1000': `p50 ≤${TARGETS.paced1000P50Ms} ms, p99 ≤${TARGETS.paced1000P99Ms} ms at ${size.paced1000RatePerS.toLocaleString('en-US')}/s`,
    'two-instances': 'CPU per delivery as one instance (no pass/fail)',
    'fan-out': `last ≤${TARGETS.fanOutLastMs.toLocaleString('en-US')} ms (of 5,000)`,
    sustained: `last/first ${size.sustainedS === 180 ? 'minute' : 'third'} ≥${TARGETS.sustainedRatio}`,
    backlog: `p50 ≤${TARGETS.backlogP50Ms} ms, p99 ≤${TARGETS.backlogP99Ms.toLocaleString('en-US')} ms`,
    'backlog-rate': `p50 ≤${TARGETS.backlogP50Ms} ms, p99 ≤${TARGETS.backlogP99Ms.toLocaleString('en-US')} ms`,
  };
}

export const tableBytes = async (table) =>
  Number((await ctx.pool.query('SELECT pg_total_relation_size($1)::bigint AS n', [table])).rows[0].n);
export const receivedCount = async () => (await ipcRequest(ctx.receiver, { cmd: 'stats' })).count;
