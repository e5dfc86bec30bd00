// Figure dispatch-paced-1000 (issue 28): publish-to-receipt latency at 1,000 deliveries a second,
// 10 events a second to 100 subscriptions for 30 s, against raw axios delivering the same stream
// at the same pace to the same receiver. Both sides first get 3 s of the same stream as warm-up.
import { TARGETS } from '../lib/config.mjs';
import { ctx, size } from '../lib/run-context.mjs';
import { measurePaced, pacedRecord } from './dispatch-paced.mjs';

export async function dispatchPaced1000Figure(target, tableNote, basePid) {
  ctx.phase = 'dispatch-paced-1000';
  const opts = {
    name: 'dispatch-paced-1000',
    tenant: 'bench-paced-1000',
    perEvent: size.paced1000Subscriptions,
    ratePerS: size.paced1000RatePerS,
    durationS: size.paced1000DurationS,
    warmS: size.paced1000WarmS,
    basePid,
  };
  const measured = await measurePaced(opts);
  const { p95, max } = measured.service.latency;
  const ack = measured.service.publishAck;
  const axios = measured.axios.latency;
  ctx.figures.push(
    pacedRecord(
      {
        figure: 'dispatch-paced-1000',
        target,
        pass: ({ p50, p99 }) => p50 <= TARGETS.paced1000P50Ms && p99 <= TARGETS.paced1000P99Ms,
        notes: [
          ...tableNote,
          `service p95 ${p95} ms, max ${max} ms; raw axios p50/p95/p99/max ${axios.p50} / ${axios.p95} / ${axios.p99} / ${axios.max} ms`,
          `the publish call's own answer (its 100 jobs committed): p50 ${ack.p50} ms, p99 ${ack.p99} ms`,
        ],
      },
      measured,
      opts,
    ),
  );
}
