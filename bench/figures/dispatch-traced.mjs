/* global process */
// Figure `dispatch-traced` (issue 28, contract section 12): the `dispatch` burst (E events × S
// subscriptions) by a service with tracing on (OTLP/HTTP protobuf to a sink in the bench's process,
// every publish sampled, so every delivery is a `webhook.attempt` span and carries a traceparent),
// against the same burst by the run's service with tracing off, in alternating rounds. Tracing is
// chosen at start-up, so the traced service is a second process on a database of its own, seeded
// like the first; each is idle while the other delivers. Target: traced ≥ 0.85 of untraced.
import { join } from 'node:path';
import pg from 'pg';
import { memoryOf, postmasterOf } from '../lib/cpu.mjs';
import { codesFor, median, runServiceDispatch } from '../lib/dispatch.mjs';
import { withCpu } from '../lib/measure.mjs';
import { startOtlpSink } from '../lib/otlp-sink.mjs';
import { onCleanup } from '../lib/processes.mjs';
import { round } from '../lib/report.mjs';
import { ctx, log, size, sleep } from '../lib/run-context.mjs';
import { embeddedDatabaseUrl, startService } from '../lib/service.mjs';
import { createDatabaseOnServer, login, seedReceiverTenant, seedSubscriptions } from '../lib/setup.mjs';

export const DISPATCH_TRACED_TARGET = 0.85;
const TENANT = 'bench-traced';
/** What a side of the comparison swaps into the run's context. */
const SIDE_FIELDS = ['service', 'pool', 'postmasterPid', 'databaseUrl', 'adminToken'];

const sideOf = () => Object.fromEntries(SIDE_FIELDS.map((f) => [f, ctx[f]]));

/** The traced service: the run's settings, its own database, an OTLP endpoint and a big enough batch queue. */
async function startTracedService(sink) {
  const dataDir = join(ctx.tmp, 'data-traced');
  const databaseUrl = process.env.DATABASE_URL
    ? await createDatabaseOnServer(process.env.DATABASE_URL)
    : undefined;
  const options = ctx.serviceOptions(dataDir);
  const service = await startService({
    ...options,
    logFile: join(ctx.tmp, 'service-traced.log'),
    env: {
      ...options.env,
      ...(databaseUrl ? { DATABASE_URL: databaseUrl } : {}),
      OTEL_EXPORTER_OTLP_ENDPOINT: sink.url,
      OTEL_TRACES_SAMPLER: 'always_on',
      // A burst is E × S attempt spans within seconds: the default queue (2,048) would drop most.
      OTEL_BSP_MAX_QUEUE_SIZE: '200000',
      OTEL_BSP_MAX_EXPORT_BATCH_SIZE: '2048',
      OTEL_BSP_SCHEDULE_DELAY: '500',
    },
  });
  const url = databaseUrl ?? embeddedDatabaseUrl(dataDir);
  const pool = new pg.Pool({ connectionString: url, max: 3 });
  pool.on('error', () => undefined);
  onCleanup(() => pool.end());
  const { rows } = await pool.query('SELECT pg_backend_pid() AS pid');
  return { service, pool, postmasterPid: postmasterOf(rows[0].pid), databaseUrl: url };
}

/** Seeds the traced service's database as the run's was, and the receiver tenant on both. */
async function setUpSides(sink) {
  const off = sideOf();
  const on = await startTracedService(sink);
  const ranges = { off: await seedReceiverTenant(TENANT, size.dispatchSubscriptions) };
  Object.assign(ctx, on);
  on.adminToken = ctx.adminToken = await login('bench-admin@example.com', ctx.adminPassword);
  await seedSubscriptions();
  ranges.on = await seedReceiverTenant(TENANT, size.dispatchSubscriptions);
  Object.assign(ctx, off);
  return { sides: { off, on }, ranges };
}

async function tracedRound(sides, ranges, k) {
  const order = k % 2 === 1 ? ['off', 'on'] : ['on', 'off'];
  const runs = {};
  for (const side of order) {
    Object.assign(ctx, sides[side]);
    const run = await withCpu(
      `dispatch-traced ${side} (round ${k})`,
      () => runServiceDispatch(ranges[side], codesFor(`TRACED-${side}-${k}`, size.dispatchEvents)),
      (r) => r.expected,
    );
    run.value = round(run.expected / ((run.done.at - run.start) / 1000));
    if (run.done.timedOut || run.done.failed)
      throw new Error(`dispatch-traced ${side} round ${k}: ${run.done.failed ?? 'timed out'} not delivered`);
    log(`dispatch-traced ${side} (round ${k}): ${run.value} deliveries/s`);
    runs[side] = run;
  }
  return {
    ...runs,
    ratio: runs.on.value / runs.off.value,
    cpuRatio: runs.on.cpu.msPerUnit.service / runs.off.cpu.msPerUnit.service,
  };
}

/** Every publish of the traced side stored its context (sampled), none of the untraced side did. */
async function sampledCounts(sides) {
  const count = async (pool) =>
    (
      await pool.query(
        `SELECT count(*) FILTER (WHERE trace_context IS NOT NULL)::int AS traced, count(*)::int AS events
         FROM webhook_events WHERE tenant = $1`,
        [TENANT],
      )
    ).rows[0];
  return { on: await count(sides.on.pool), off: await count(sides.off.pool) };
}

async function measure(sides, ranges) {
  for (const side of ['off', 'on']) {
    Object.assign(ctx, sides[side]);
    await runServiceDispatch(ranges[side], codesFor(`TRACED-WARM-${side}`, size.dispatchWarmEvents));
  }
  const rounds = [];
  for (let k = 1; k <= size.dispatchRounds; k++) rounds.push(await tracedRound(sides, ranges, k));
  return rounds;
}

export async function dispatchTracedFigure() {
  ctx.phase = 'dispatch-traced';
  const sink = await startOtlpSink();
  onCleanup(() => sink.close());
  const { sides, ranges } = await setUpSides(sink);
  log(
    `dispatch-traced: ${size.dispatchEvents} events × ${ranges.on.count} subscriptions, traced and untraced in turn`,
  );
  let rounds;
  try {
    rounds = await measure(sides, ranges);
  } finally {
    Object.assign(ctx, sides.off);
  }
  await sleep(1500); // the last batch leaves the traced service
  const sampled = await sampledCounts(sides);
  // The traced service's own peak (the memory figure is the run's untraced service).
  const tracedPeakMb = round(memoryOf(sides.on.service.pid)?.hwmMb, 1);
  await sides.on.service.stop();
  const { on, off } = [...rounds].sort((a, b) => a.ratio - b.ratio)[Math.floor(rounds.length / 2)];
  const ratio = round(on.value / off.value, 2);
  const cpuMs = (side) => median(rounds.map((r) => r[side].cpu.msPerUnit.service));
  const cpuMsPerDelivery = { traced: cpuMs('on'), untraced: cpuMs('off') };
  ctx.figures.push({
    figure: 'dispatch-traced',
    unit: 'deliveries/s',
    value: on.value,
    baseline: off.value,
    ratio,
    p50: on.latency.p50,
    p99: on.latency.p99,
    cpuMsPerDelivery,
    tracedPeakMb,
    rounds: rounds.map((r) => ({
      traced: r.on.value,
      untraced: r.off.value,
      ratio: round(r.ratio, 2),
      cpuRatio: round(r.cpuRatio, 2),
    })),
    target: `traced ≥${DISPATCH_TRACED_TARGET}× untraced`,
    pass: ratio >= DISPATCH_TRACED_TARGET,
    notes: [
      'baseline: the same burst by the run’s service with tracing off (no OTLP endpoint), in alternating rounds',
      `traced: a second service on its own database seeded alike, OTLP/HTTP protobuf to a sink in the bench; ` +
        `${sampled.on.traced} of ${sampled.on.events} events stored a publish context (untraced: ${sampled.off.traced} of ${sampled.off.events})`,
      `exported: ${sink.stats.requests} OTLP requests, ${round(sink.stats.bytes / 1e6, 1)} MB; ` +
        `the traced service's peak memory (VmHWM) ${tracedPeakMb} MB`,
      `median of ${rounds.length} rounds by ratio; ratios ${rounds.map((r) => round(r.ratio, 2)).join(', ')}`,
      `service CPU per delivery (median): traced ${cpuMsPerDelivery.traced} ms, untraced ${cpuMsPerDelivery.untraced} ms` +
        ` (traced/untraced per round: ${rounds.map((r) => round(r.cpuRatio, 2)).join(', ')})`,
    ],
  });
}
