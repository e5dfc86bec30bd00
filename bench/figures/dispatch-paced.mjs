// Figure dispatch-paced: publish-to-receipt latency of a paced stream of events, against a raw
// axios client delivering the same stream. measurePaced is shared with dispatch-paced-1000.
import { TARGETS } from '../lib/config.mjs';
import { codesFor, runBaselineDispatch, runServiceDispatch } from '../lib/dispatch.mjs';
import { settleDatabase, withMaintenance } from '../lib/maintenance.mjs';
import { withCpu } from '../lib/measure.mjs';
import { latencySummary, round } from '../lib/report.mjs';
import { ctx, log, size } from '../lib/run-context.mjs';
import { seedReceiverTenant } from '../lib/setup.mjs';
import { warmUpDeliveries, warmUpPublishPipeline } from './dispatch.mjs';

/**
 * Where the time of the service's deliveries went, from the clocks of one machine: the publish
 * call's start (bench) to its transaction's start (the event's `created_at`), then to the attempt's
 * start on the delivery thread (the record's `sent_at`: the commit, NOTIFY, claim, hand-over and
 * the thread's queue); what the receiver saw beyond that is the POST itself.
 */
async function attemptStages(service, range) {
  if (!ctx.deliveriesTable) return undefined;
  const { rows } = await ctx.pool.query(
    `SELECT e.payload->'licence'->>'code' AS code,
            extract(epoch FROM e.created_at)::float8 * 1000 AS "eventAt",
            extract(epoch FROM d.sent_at)::float8 * 1000 AS "sentAt"
       FROM webhook_deliveries d JOIN webhook_events e ON e.id = d.event_id
      WHERE d.id > $1 AND d.subscription_id BETWEEN $2 AND $3`,
    [service.afterId, range.min, range.max],
  );
  const from = (row) => service.publishedAt[row.code];
  const known = rows.filter((row) => from(row) !== undefined);
  const byEvent = new Map(known.map((row) => [row.code, row.eventAt - from(row)]));
  return {
    toTransaction: latencySummary([...byEvent.values()]),
    transactionToAttempt: latencySummary(known.map((row) => row.sentAt - row.eventAt)),
    toAttempt: latencySummary(known.map((row) => row.sentAt - from(row))),
  };
}

/**
 * One paced stream, `ratePerS` deliveries a second of `perEvent` subscriptions each for
 * `durationS`, by the service and then by raw axios (the same receiver, the same schedule), each
 * after the same warm-up at that pace (`warmS`; 0: one event), the service's after the publish
 * pipeline's warm-up (warmUpPublishPipeline), and both after dispatch's bursts if no figure before
 * gave them (warmUpDeliveries).
 */
export async function measurePaced({ name, tenant, perEvent, ratePerS, durationS, warmS, basePid }) {
  const eventsPerS = ratePerS / perEvent;
  const paceMs = 1000 / eventsPerS;
  const n = Math.round(durationS * eventsPerS);
  const warmEvents = Math.max(1, Math.round(warmS * eventsPerS));
  const range = await seedReceiverTenant(tenant, perEvent);
  const prefix = name.toUpperCase().replace(/[^A-Z0-9]+/g, '');
  log(`${name}: ${n} events × ${perEvent} subscriptions, one event every ${round(paceMs, 1)} ms`);
  // Latency of the stream alone: not of autovacuum working through the earlier figures' rows (in a
  // full run the API figures' 100,000 subscriptions, dispatch's records) on the same two cores.
  const settled = await settleDatabase(name);
  // The same warm-up whether other figures ran before or not (`--only`): the figure means the same.
  await warmUpPublishPipeline();
  await warmUpDeliveries(range, basePid);
  await runServiceDispatch(range, codesFor(`${prefix}WARM`, warmEvents), { paceMs });
  const { result: service, maintenance } = await withMaintenance(`${name} service`, () =>
    withCpu(
      `${name} service`,
      () => runServiceDispatch(range, codesFor(prefix, n), { paceMs }),
      (r) => r.expected,
    ),
  );
  service.maintenance = maintenance;
  service.stages = await attemptStages(service, range);
  ctx.baselinePid = basePid;
  await runBaselineDispatch('axios', range, codesFor(`${prefix}WARM-axios`, warmEvents), { paceMs });
  const axios = await withCpu(
    `${name} axios`,
    () => runBaselineDispatch('axios', range, codesFor(`${prefix}-axios`, n), { paceMs }),
    (r) => r.ok + r.failed,
  );
  ctx.baselinePid = undefined;
  const achievedPerS = round(service.expected / ((service.done.at - service.start) / 1000));
  const { p50, p95, p99, max } = service.latency;
  log(`${name} service: p50 ${p50} ms, p95 ${p95} ms, p99 ${p99} ms, max ${max} ms (${achievedPerS}/s)`);
  log(`${name} axios: p50 ${axios.latency.p50} ms, p99 ${axios.latency.p99} ms`);
  return { service, axios, n, achievedPerS, settled };
}

/** The figure's record: the service's p50 against raw axios' at the same pace. */
export function pacedRecord(
  { figure, target, pass, notes },
  { service, axios, n, achievedPerS, settled },
  opts,
) {
  const { p50, p99 } = service.latency;
  const allNotes = [...notes, `before the warm-up the database settled: ${settled}`, service.maintenance];
  if (service.done.timedOut)
    allNotes.push(`timed out: ${service.done.received} of ${service.expected} received`);
  if (service.done.failed) allNotes.push(`${service.done.failed} deliveries FAILED`);
  const stages = service.stages;
  if (stages)
    allNotes.push(
      `stages p50 / p99 (ms): publish start → its transaction ${stages.toTransaction.p50} / ${stages.toTransaction.p99}, ` +
        `→ the attempt's start ${stages.transactionToAttempt.p50} / ${stages.transactionToAttempt.p99}; ` +
        `publish start → attempt start ${stages.toAttempt.p50} / ${stages.toAttempt.p99}, → receipt ${p50} / ${p99}`,
    );
  return {
    figure,
    unit: 'ms',
    value: p50,
    p50,
    p99,
    baseline: axios.latency.p50,
    ratio: p50 && axios.latency.p50 ? round(p50 / axios.latency.p50, 2) : null,
    baselines: { 'axios paced': { value: axios.latency.p50, unit: 'ms', ...axios.latency } },
    ratePerS: opts.ratePerS,
    achievedPerS,
    events: n,
    subscriptionsPerEvent: opts.perEvent,
    latency: service.latency,
    publishAck: service.publishAck,
    stages,
    cpuMsPerDelivery: {
      service: service.cpu.msPerUnit.service,
      postgres: service.cpu.msPerUnit.postgres,
      axios: axios.cpu.msPerUnit.baseline,
    },
    target,
    pass: p50 !== null && p99 !== null && pass(service.latency),
    notes: [
      ...allNotes,
      'publish-to-receipt: from sending POST /admin/licence-events to the receiver reading the body',
    ],
  };
}

export async function dispatchPacedFigure(target, tableNote, basePid) {
  ctx.phase = 'dispatch-paced';
  const opts = {
    name: 'dispatch-paced',
    tenant: 'bench-paced',
    perEvent: size.pacedSubscriptions,
    ratePerS: size.pacedRatePerS,
    durationS: size.pacedDurationS,
    warmS: size.pacedWarmS,
    basePid,
  };
  const measured = await measurePaced(opts);
  ctx.figures.push(
    pacedRecord(
      {
        figure: 'dispatch-paced',
        target,
        pass: ({ p50, p99 }) => p50 <= TARGETS.pacedP50Ms && p99 <= TARGETS.pacedP99Ms,
        notes: tableNote,
      },
      measured,
      opts,
    ),
  );
}
