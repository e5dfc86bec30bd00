// Figure sustained: full-speed dispatch for minutes, the throughput of the last third against the
// first, each with its CPU per delivery.
import { DELIVERIES_TABLE, TARGETS } from '../lib/config.mjs';
import {
  codesFor,
  maxDeliveryId,
  publish,
  receivedCount,
  resetReceiver,
  runServiceDispatch,
  tableBytes,
  waitForDeliveries,
} from '../lib/dispatch.mjs';
import { startCpuRun } from '../lib/measure.mjs';
import { round } from '../lib/report.mjs';
import { ctx, log, now, size, sleep } from '../lib/run-context.mjs';
import { seedReceiverTenant } from '../lib/setup.mjs';

const tableSizes = async () => ({
  jobs: await tableBytes('webhook_jobs'),
  records: await tableBytes(DELIVERIES_TABLE),
});

/**
 * Four publishers keep `sustainedAheadDeliveries` deliveries published ahead of the receipts for
 * `sustainedS`, while the first and last windows are measured: what was published, the receipts
 * about every second, and each window's throughput and CPU per delivery.
 */
async function runSustainedLoad(range, windowS, label) {
  const start = now();
  const end = start + size.sustainedS * 1000;
  let published = 0; // deliveries, counted as each publish starts
  let received = 0;
  const timeline = []; // [seconds since start, receipts], about every second
  const sampler = async () => {
    while (now() < end) {
      received = await receivedCount();
      if (now() - start >= timeline.length * 1000)
        timeline.push([round((now() - start) / 1000, 1), received]);
      await sleep(50);
    }
  };
  const publisher = async () => {
    while (now() < end) {
      if (published - received >= size.sustainedAheadDeliveries) await sleep(5);
      else {
        published += range.count;
        await publish(range.tenant, `BENCH-S-${published / range.count}`);
      }
    }
  };
  const windows = {};
  const measureWindow = async (which, fromS) => {
    await sleep(start + fromS * 1000 - now());
    const stop = startCpuRun(`sustained service (${label(which)})`);
    const from = { at: now(), count: await receivedCount() };
    await sleep(from.at + windowS * 1000 - now());
    const to = { at: now(), count: await receivedCount() };
    const { service, postgres, receiver } = stop(to.count - from.count).msPerUnit;
    windows[which] = {
      value: round((to.count - from.count) / ((to.at - from.at) / 1000)),
      unit: 'deliveries/s',
      deliveries: to.count - from.count,
      cpuMsPerDelivery: { service, postgres, receiver },
    };
  };
  await Promise.all([
    sampler(),
    ...Array.from({ length: 4 }, publisher),
    measureWindow('first', 0),
    measureWindow('last', size.sustainedS - windowS),
  ]);
  return { published, timeline, windows };
}

function sustainedNotes({ windows, published, bytesBefore, bytesAfter, done }, range, label) {
  const { first, last } = windows;
  const mb = (bytes) => round(bytes / 2 ** 20, 1);
  const notes = [
    `deliveries/s by receipts; ${label('first')} against the ${label('last')} of ${size.sustainedS} s, ` +
      `${published.toLocaleString('en-US')} deliveries to ${range.count} subscriptions`,
    `CPU per delivery, first → last: PostgreSQL ${first.cpuMsPerDelivery.postgres} → ${last.cpuMsPerDelivery.postgres} ms, ` +
      `service ${first.cpuMsPerDelivery.service} → ${last.cpuMsPerDelivery.service} ms`,
    // Once its connections are open the receiver does the same work for every delivery: what its
    // CPU per delivery does over minutes, the shared machine's speed does.
    `the receiver's CPU per delivery (a control for the machine's speed), ` +
      `first → last: ${first.cpuMsPerDelivery.receiver} → ${last.cpuMsPerDelivery.receiver} ms`,
    `webhook_jobs ${mb(bytesBefore.jobs)} → ${mb(bytesAfter.jobs)} MB, ${DELIVERIES_TABLE} ` +
      `${mb(bytesBefore.records)} → ${mb(bytesAfter.records)} MB (with indexes)`,
  ];
  if (done.timedOut) notes.push(`timed out: ${done.received} of ${published} received`);
  if (done.failed) notes.push(`${done.failed} deliveries FAILED`);
  return notes;
}

/**
 * Full-speed dispatch for `sustainedS`, the queue never dry and small, as at capacity. The figure
 * is the throughput (receipts) of the last third over the first: what grows meanwhile (records,
 * events, dead job versions, autovacuum) shows as the gap.
 */
export async function sustainedFigure(targets) {
  ctx.phase = 'sustained';
  const range = await seedReceiverTenant('bench-sustained', size.dispatchSubscriptions);
  const windowS = size.sustainedS / 3;
  const label = (which) => (windowS === 60 ? `${which} minute` : `${which} ${round(windowS, 1)} s`);
  log(`sustained: ${size.sustainedS} s of full-speed dispatch to ${range.count} subscriptions`);
  await runServiceDispatch(range, codesFor('SWARM', size.dispatchWarmEvents));
  await resetReceiver();
  const afterId = await maxDeliveryId();
  const bytesBefore = await tableSizes();
  const { published, timeline, windows } = await runSustainedLoad(range, windowS, label);
  const done = await waitForDeliveries(range, afterId, published, size.waitTimeoutS);
  const bytesAfter = await tableSizes();
  await resetReceiver();
  const { first, last } = windows;
  const ratio = first.value ? round(last.value / first.value, 2) : null;
  log(`sustained: first ${first.value}/s, last ${last.value}/s (${ratio})`);
  ctx.figures.push({
    figure: 'sustained',
    unit: 'deliveries/s',
    value: last.value,
    baseline: first.value,
    ratio,
    baselines: { [label('first')]: first },
    windows,
    durationS: size.sustainedS,
    deliveries: published,
    subscriptions: range.count,
    timeline,
    tableBytes: { before: bytesBefore, after: bytesAfter },
    target: targets.sustained,
    pass: ratio !== null && !done.timedOut && ratio >= TARGETS.sustainedRatio,
    notes: sustainedNotes({ windows, published, bytesBefore, bytesAfter, done }, range, label),
  });
}
