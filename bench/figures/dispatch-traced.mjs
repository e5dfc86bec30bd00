// Figure `dispatch-traced` (issue 28, contract section 12): the `dispatch` burst (E events × S
// subscriptions) by a service with tracing on (OTLP/HTTP protobuf to a sink in the bench's process,
// every publish sampled, so every delivery is a `webhook.attempt` span and carries a traceparent),
// against the same burst by the run's service with tracing off, in alternating rounds. Tracing is
// chosen at start-up, so the traced service is a second process on a database of its own, seeded
// like the first; each is idle while the other delivers (lib/paired-services.mjs). Target: traced
// ≥ 0.85 of untraced.
import { startOtlpSink } from '../lib/otlp-sink.mjs';
import { ratiosText, runPairedRounds, startPair } from '../lib/paired-services.mjs';
import { onCleanup } from '../lib/processes.mjs';
import { round } from '../lib/report.mjs';
import { ctx, log, size, sleep } from '../lib/run-context.mjs';

export const DISPATCH_TRACED_TARGET = 0.85;
const TENANT = 'bench-traced';

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

export async function dispatchTracedFigure() {
  ctx.phase = 'dispatch-traced';
  const sink = await startOtlpSink();
  onCleanup(() => sink.close());
  const pair = await startPair({
    tenant: TENANT,
    names: ['off', 'on'],
    second: {
      name: 'traced',
      env: {
        OTEL_EXPORTER_OTLP_ENDPOINT: sink.url,
        OTEL_TRACES_SAMPLER: 'always_on',
        // A burst is E × S attempt spans within seconds: the default queue (2,048) would drop most.
        OTEL_BSP_MAX_QUEUE_SIZE: '200000',
        OTEL_BSP_MAX_EXPORT_BATCH_SIZE: '2048',
        OTEL_BSP_SCHEDULE_DELAY: '500',
      },
    },
  });
  log(
    `dispatch-traced: ${size.dispatchEvents} events × ${pair.ranges.on.count} subscriptions, traced and untraced in turn`,
  );
  const { rounds, medianRound, serviceMs } = await runPairedRounds(pair, 'dispatch-traced');
  await sleep(1500); // the last batch leaves the traced service
  const sampled = await sampledCounts(pair.sides);
  // The traced service's own peak (the memory figure is the run's untraced service).
  const tracedPeakMb = pair.secondPeakMb();
  await pair.stop();
  const { on, off } = medianRound;
  const ratio = round(on.value / off.value, 2);
  const cpuMsPerDelivery = { traced: serviceMs.on, untraced: serviceMs.off };
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
      `median of ${rounds.length} rounds by ratio; ratios ${ratiosText(rounds, 'ratio')}`,
      `service CPU per delivery (median): traced ${cpuMsPerDelivery.traced} ms, untraced ${cpuMsPerDelivery.untraced} ms` +
        ` (traced/untraced per round: ${ratiosText(rounds, 'cpuRatio')})`,
    ],
  });
}
