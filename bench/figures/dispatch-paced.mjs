// Figure dispatch-paced: publish-to-receipt latency of a paced stream of events, against a raw
// axios client delivering the same stream.
import { TARGETS } from '../lib/config.mjs';
import { codesFor, runBaselineDispatch, runServiceDispatch } from '../lib/dispatch.mjs';
import { withCpu } from '../lib/measure.mjs';
import { round } from '../lib/report.mjs';
import { ctx, log, size } from '../lib/run-context.mjs';
import { seedReceiverTenant } from '../lib/setup.mjs';

export async function dispatchPacedFigure(target, tableNote, basePid) {
  ctx.phase = 'dispatch-paced';
  const perEvent = size.pacedSubscriptions;
  const eventsPerS = size.pacedRatePerS / perEvent;
  const paceMs = 1000 / eventsPerS;
  const n = Math.round(size.pacedDurationS * eventsPerS);
  const range = await seedReceiverTenant('bench-paced', perEvent);
  log(`dispatch-paced: ${n} events × ${perEvent} subscriptions, one event every ${paceMs} ms`);
  await runServiceDispatch(range, codesFor('PWARM', 1));
  const service = await withCpu(
    'dispatch-paced service',
    () => runServiceDispatch(range, codesFor('P', n), { paceMs }),
    (r) => r.expected,
  );
  ctx.baselinePid = basePid;
  await runBaselineDispatch('axios', range, codesFor('PWARM-axios', 1));
  const axiosPaced = await withCpu(
    'dispatch-paced axios',
    () => runBaselineDispatch('axios', range, codesFor('P-axios', n), { paceMs }),
    (r) => r.ok + r.failed,
  );
  ctx.baselinePid = undefined;
  const notes = [...tableNote];
  if (service.done.timedOut)
    notes.push(`timed out: ${service.done.received} of ${service.expected} received`);
  const achieved = round(service.expected / ((service.done.at - service.start) / 1000));
  log(`dispatch-paced service: p50 ${service.latency.p50} ms, p99 ${service.latency.p99} ms (${achieved}/s)`);
  ctx.figures.push({
    figure: 'dispatch-paced',
    unit: 'ms',
    value: service.latency.p50,
    p50: service.latency.p50,
    p99: service.latency.p99,
    baseline: axiosPaced.latency.p50,
    ratio:
      service.latency.p50 && axiosPaced.latency.p50
        ? round(service.latency.p50 / axiosPaced.latency.p50, 2)
        : null,
    baselines: {
      'axios paced': {
        value: axiosPaced.latency.p50,
        unit: 'ms',
        p50: axiosPaced.latency.p50,
        p99: axiosPaced.latency.p99,
      },
    },
    ratePerS: size.pacedRatePerS,
    achievedPerS: achieved,
    events: n,
    subscriptionsPerEvent: perEvent,
    latency: service.latency,
    publishAck: service.publishAck,
    target: target,
    pass: service.latency.p50 !== null && service.latency.p50 <= TARGETS.pacedP50Ms,
    notes: [
      ...notes,
      'publish-to-receipt: from sending POST /admin/licence-events to the receiver reading the body',
    ],
  });
}
