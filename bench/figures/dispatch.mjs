// Figure dispatch: bursts of E events × S subscriptions by the service, against raw axios and
// undici clients delivering the same, in rounds; the median round by ratio counts.
import { TARGETS } from '../lib/config.mjs';
import { codesFor, median, runBaselineDispatch, runServiceDispatch } from '../lib/dispatch.mjs';
import { settleDatabase, withMaintenance } from '../lib/maintenance.mjs';
import { warmUpLoad, withCpu } from '../lib/measure.mjs';
import { round } from '../lib/report.mjs';
import { baselineNodeArgs, ctx, EVENT_TYPE, licence, log, size } from '../lib/run-context.mjs';
import { seedReceiverTenant } from '../lib/setup.mjs';

const CLIENTS = ['axios', 'undici'];

async function dispatchRound(range, k, basePid) {
  const E = size.dispatchEvents;
  const tag = size.dispatchRounds > 1 ? ` (round ${k})` : '';
  const label = `dispatch service${tag}`;
  const { result: service, maintenance } = await withMaintenance(label, () =>
    withCpu(
      label,
      () => runServiceDispatch(range, codesFor(`D${k}`, E)),
      (r) => r.expected,
    ),
  );
  service.value = round(service.expected / ((service.done.at - service.start) / 1000));
  log(
    `dispatch service${tag}: ${service.value} deliveries/s, latency p50 ${service.latency.p50} ms p99 ${service.latency.p99} ms`,
  );
  ctx.baselinePid = basePid;
  const baselines = {};
  for (const client of CLIENTS) {
    baselines[client] = await withCpu(
      `dispatch ${client}${tag}`,
      () => runBaselineDispatch(client, range, codesFor(`${client}${k}`, E)),
      (r) => r.ok + r.failed,
    );
    log(`dispatch ${client}${tag}: ${baselines[client].value} deliveries/s`);
  }
  ctx.baselinePid = undefined;
  return { service, baselines, ratio: service.value / baselines.axios.value, maintenance };
}

function roundNotes(rounds, tableNote) {
  const notes = [
    ...tableNote,
    'p50/p99: publish-to-receipt of the burst (each delivery waits behind the backlog of the whole burst)',
  ];
  if (baselineNodeArgs().length > 0)
    notes.push(
      `the raw clients ran with node options ${baselineNodeArgs().join(' ')} (--baseline-node-args)`,
    );
  if (rounds.length > 1)
    notes.push(
      `median of ${rounds.length} rounds (service, axios, undici in turn) by ratio; ratios ${rounds
        .map((r) => round(r.ratio, 2))
        .join(', ')}`,
    );
  for (const [k, r] of rounds.entries()) {
    const tag = rounds.length > 1 ? `round ${k + 1}: ` : '';
    if (r.service.done.timedOut)
      notes.push(
        `${tag}timed out after ${size.waitTimeoutS} s: ${r.service.done.received} of ${r.service.expected} received`,
      );
    if (r.service.done.failed) notes.push(`${tag}${r.service.done.failed} deliveries FAILED`);
    notes.push(r.maintenance);
    for (const client of CLIENTS)
      if (r.baselines[client].failed)
        notes.push(
          `${tag}${client}: ${r.baselines[client].failed} failed (${r.baselines[client].firstError})`,
        );
  }
  return notes;
}

/** CPU per delivery, the median over the rounds: steadier than throughput on a shared machine. */
function cpuPerDelivery(rounds) {
  const cpuMs = (pick) => median(rounds.map(pick).filter((v) => v !== undefined));
  return {
    service: cpuMs((r) => r.service.cpu.msPerUnit.service),
    postgres: cpuMs((r) => r.service.cpu.msPerUnit.postgres),
    axios: cpuMs((r) => r.baselines.axios.cpu.msPerUnit.baseline),
    'axios postgres': cpuMs((r) => r.baselines.axios.cpu.msPerUnit.postgres),
  };
}

/** CPU per delivery by thread (threadSplit in lib/cpu.mjs), the median over the rounds. */
function cpuPerDeliveryByThread(rounds) {
  const split = (pick) => {
    const of = (part) => median(rounds.map((r) => pick(r).cpu.appThreadsMsPerUnit?.[part]).filter(Boolean));
    return { main: of('main'), busiest: of('busiest'), rest: of('rest') };
  };
  return { service: split((r) => r.service), axios: split((r) => r.baselines.axios) };
}

function dispatchRecord(rounds, range, target, notes) {
  const { service, baselines } = [...rounds].sort((a, b) => a.ratio - b.ratio)[Math.floor(rounds.length / 2)];
  const value = service.value;
  const ratio = round(value / baselines.axios.value, 2);
  const cpuMsPerDelivery = cpuPerDelivery(rounds);
  const byThread = cpuPerDeliveryByThread(rounds);
  notes.push(
    `CPU per delivery (median of ${rounds.length}): service ${cpuMsPerDelivery.service} ms, ` +
      `PostgreSQL ${cpuMsPerDelivery.postgres} ms; raw axios ${cpuMsPerDelivery.axios} ms`,
    // Which thread the service's extra is on: the posts (the delivery thread against raw axios'
    // own thread), the claims and records (the main thread), or V8's helpers (mostly the collector).
    `CPU per delivery by thread (ms, median): service main ${byThread.service.main}, delivery thread ` +
      `${byThread.service.busiest}, the rest ${byThread.service.rest} (V8's helpers: the collector, ` +
      `the compiler; libuv); raw axios: its thread ${byThread.axios.main}, the rest ` +
      `${round(byThread.axios.busiest + byThread.axios.rest, 3)}`,
  );
  return {
    figure: 'dispatch',
    unit: 'deliveries/s',
    value,
    p50: service.latency.p50,
    p99: service.latency.p99,
    baseline: baselines.axios.value,
    ratio,
    ratioUndici: round(value / baselines.undici.value, 2),
    baselines: Object.fromEntries(
      Object.entries(baselines).map(([k, b]) => [
        k,
        { value: b.value, unit: b.unit, p50: b.latency.p50, p99: b.latency.p99, failed: b.failed },
      ]),
    ),
    events: size.dispatchEvents,
    subscriptionsPerEvent: range.count,
    deliveries: service.expected,
    cpuMsPerDelivery,
    cpuMsPerDeliveryByThread: byThread,
    concurrency: ctx.concurrency,
    receiverPorts: ctx.receiverPorts.length,
    publishMs: round(service.published - service.start),
    lastReceiptMs: round(service.last - service.start),
    lastRecordMs: round(service.done.at - service.start),
    latency: service.latency,
    publishAck: service.publishAck,
    failed: service.done.failed,
    rounds: rounds.map((r) => ({
      service: r.service.value,
      axios: r.baselines.axios.value,
      undici: r.baselines.undici.value,
      ratio: round(r.ratio, 2),
    })),
    target,
    pass: ratio >= TARGETS.dispatchRatio && value >= TARGETS.dispatchPerS,
    notes,
  };
}

/**
 * `warmupApiS` of publishes to a tenant without subscriptions: the publish's HTTP pipeline, the pg
 * driver, the pool's connections and PostgreSQL's backends warmed as a full run's API figures warm
 * them. Every dispatch figure that measures the service starts with it (or dispatch's warm-up).
 */
export async function warmUpPublishPipeline() {
  await warmUpLoad(
    ctx.service.base,
    {
      method: 'POST',
      path: '/admin/licence-events',
      token: ctx.adminToken,
      body: { eventType: EVENT_TYPE, tenant: 'bench-nobody', licence: licence('BENCH-WARM-API') },
    },
    size.warmupApiS,
  );
}

/**
 * What a full run does before this figure, done here too, so that `--only dispatch` means the same:
 * in a full run the API figures first load the service for about a minute (V8's optimised code of
 * the HTTP pipeline and the pg driver, the heap grown to its working size, every pool connection
 * open, PostgreSQL's backends with their caches). Here: `warmupApiS` of publishes to a tenant
 * without subscriptions (the same pipeline, pool and backends), then the deliveries' warm-up.
 */
async function warmUp(range, basePid) {
  await warmUpPublishPipeline();
  await warmUpDeliveries(range, basePid);
}

/**
 * Each side gets the same `dispatchWarmBursts` bursts of `dispatchWarmEvents` events to `range`
 * (the delivery thread's and the raw clients' code, connections, heap growth), once per run: the
 * dispatch figures after the first find both sides warm, in a full run and with `--only` alike.
 */
export async function warmUpDeliveries(range, basePid) {
  if (ctx.deliveriesWarm) return;
  const warm = size.dispatchWarmEvents;
  for (let k = 1; k <= size.dispatchWarmBursts; k++) {
    await runServiceDispatch(range, codesFor(`WARM${k}`, warm));
    ctx.baselinePid = basePid;
    for (const client of CLIENTS)
      await runBaselineDispatch(client, range, codesFor(`WARM${k}-${client}`, warm));
    ctx.baselinePid = undefined;
  }
  ctx.deliveriesWarm = true;
}

export async function dispatchFigure(target, tableNote, basePid) {
  ctx.phase = 'dispatch';
  const E = size.dispatchEvents;
  const range = await seedReceiverTenant('bench-dispatch', size.dispatchSubscriptions);
  log(`dispatch: ${E} events × ${range.count} subscriptions = ${E * range.count} deliveries`);
  // The rounds' PostgreSQL CPU is dispatch's own, not autovacuum's and the checkpoint's work on the
  // earlier figures' rows (in a full run the API figures' 100,000 subscriptions).
  const settled = await settleDatabase('dispatch');
  await warmUp(range, basePid);
  // Rounds of service, axios, undici: a burst lasts seconds, and what else the shared machine
  // runs drifts over that time; alternating and taking the median round keeps one unlucky
  // burst from making the figure.
  const rounds = [];
  for (let k = 1; k <= size.dispatchRounds; k++) rounds.push(await dispatchRound(range, k, basePid));
  const notes = [`before the warm-up the database settled: ${settled}`, ...roundNotes(rounds, tableNote)];
  ctx.figures.push(dispatchRecord(rounds, range, target, notes));
}
