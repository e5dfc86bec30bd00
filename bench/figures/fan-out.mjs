// Figure fan-out: one event to thousands of subscriptions, first and last receipt, against a raw
// axios client delivering the same.
import { TARGETS } from '../lib/config.mjs';
import { runBaselineDispatch, runServiceDispatch } from '../lib/dispatch.mjs';
import { withCpu } from '../lib/measure.mjs';
import { round } from '../lib/report.mjs';
import { ctx, log, size } from '../lib/run-context.mjs';
import { seedReceiverTenant } from '../lib/setup.mjs';

export async function fanOutFigure(target, tableNote, basePid) {
  ctx.phase = 'fan-out';
  const range = await seedReceiverTenant('bench-fanout', size.fanOut);
  log(`fan-out: 1 event × ${range.count} subscriptions`);
  const service = await withCpu(
    'fan-out service',
    () => runServiceDispatch(range, ['BENCH-FANOUT-1']),
    (r) => r.expected,
  );
  ctx.baselinePid = basePid;
  const axiosFan = await withCpu(
    'fan-out axios',
    () => runBaselineDispatch('axios', range, ['BENCH-FANOUT-axios']),
    (r) => r.ok + r.failed,
  );
  ctx.baselinePid = undefined;
  const notes = [...tableNote];
  if (service.done.timedOut)
    notes.push(`timed out: ${service.done.received} of ${service.expected} received`);
  if (service.done.failed) notes.push(`${service.done.failed} deliveries FAILED`);
  const firstMs = service.first ? round(service.first - service.start) : null;
  const lastMs = service.last ? round(service.last - service.start) : null;
  const baseLast = round(axiosFan.last - axiosFan.start);
  log(`fan-out service: first ${firstMs} ms, last ${lastMs} ms; axios last ${baseLast} ms`);
  ctx.figures.push({
    figure: 'fan-out',
    unit: 'ms',
    value: lastMs,
    firstMs,
    lastMs,
    lastRecordMs: round(service.done.at - service.start),
    publishAckMs: service.publishAck.p50,
    baseline: baseLast,
    ratio: lastMs && baseLast ? round(lastMs / baseLast, 2) : null,
    baselines: {
      axios: {
        value: baseLast,
        unit: 'ms',
        firstMs: round(axiosFan.first - axiosFan.start),
        lastMs: baseLast,
      },
    },
    subscriptions: range.count,
    target: target,
    pass: range.count >= 5000 ? lastMs !== null && lastMs <= TARGETS.fanOutLastMs : undefined,
    notes: [
      ...notes,
      'value: publish to last receipt; first receipt in firstMs' +
        (range.count < 5000 ? `; target applies to 5,000 (this run: ${range.count})` : ''),
    ],
  });
}
