// Figure `dispatch-signing`: the dispatch burst of `dispatch` (E events × S subscriptions) to
// subscriptions with signing secrets (every delivery signed: what the service does) and to as many
// without (unsigned: the cost before Standard Webhooks signing), alternating in rounds on the same
// service, database and receiver ports. Two tenants of the same shape, so nothing is written
// between rounds (taking secrets away and giving them back updated the subscriptions before every
// round). Target (issue 17): signed ≥ 0.95 of unsigned.
import { unsignSubscriptions } from '../lib/signing.mjs';

export const DISPATCH_SIGNING_TARGET = 0.95;

/** One round: both tenants' bursts, in turn; their runs and the ratios of signed to unsigned. */
async function signingRound(h, ranges, k) {
  const { size, log, round } = h;
  // Alternating which side goes first, so a drift of the shared machine favours neither.
  const order = k % 2 === 1 ? ['unsigned', 'signed'] : ['signed', 'unsigned'];
  const runs = {};
  for (const side of order) {
    const run = await h.withCpu(
      `dispatch-signing ${side} (round ${k})`,
      () => h.runServiceDispatch(ranges[side], h.codesFor(`SIGN-${side}-${k}`, size.dispatchEvents)),
      (r) => r.expected,
    );
    run.value = round(run.expected / ((run.done.at - run.start) / 1000));
    if (run.done.timedOut || run.done.failed)
      throw new Error(`dispatch-signing ${side} round ${k}: ${run.done.failed ?? 'timed out'} not delivered`);
    log(`dispatch-signing ${side} (round ${k}): ${run.value} deliveries/s`);
    runs[side] = run;
  }
  return {
    ...runs,
    ratio: runs.signed.value / runs.unsigned.value,
    cpuRatio: runs.signed.cpu.msPerUnit.service / runs.unsigned.cpu.msPerUnit.service,
  };
}

/** `h`: the run's context and the dispatch helpers of lib/dispatch.mjs. */
export async function dispatchSigningFigure(h) {
  const { ctx, size, log, round, median } = h;
  const E = size.dispatchEvents;
  // seedReceiverTenant gives every subscription a secret, as the API does.
  const ranges = {
    signed: await h.seedReceiverTenant('bench-signed', size.dispatchSubscriptions),
    unsigned: await h.seedReceiverTenant('bench-unsigned', size.dispatchSubscriptions),
  };
  await unsignSubscriptions(ctx.pool, 'bench-unsigned');
  await ctx.pool.query('VACUUM (ANALYZE) subscriptions');
  log(
    `dispatch-signing: ${E} events × ${ranges.signed.count} subscriptions, signed and unsigned tenants in turn`,
  );
  for (const side of ['unsigned', 'signed'])
    await h.runServiceDispatch(ranges[side], h.codesFor(`SIGN-WARM-${side}`, size.dispatchWarmEvents));
  const rounds = [];
  for (let k = 1; k <= size.dispatchRounds; k++) rounds.push(await signingRound(h, ranges, k));
  const { signed, unsigned } = [...rounds].sort((a, b) => a.ratio - b.ratio)[Math.floor(rounds.length / 2)];
  const ratio = round(signed.value / unsigned.value, 2);
  const cpuMs = (side) => median(rounds.map((r) => r[side].cpu.msPerUnit.service));
  const cpuMsPerDelivery = { signed: cpuMs('signed'), unsigned: cpuMs('unsigned') };
  ctx.figures.push({
    figure: 'dispatch-signing',
    unit: 'deliveries/s',
    value: signed.value,
    baseline: unsigned.value,
    ratio,
    p50: signed.latency.p50,
    p99: signed.latency.p99,
    cpuMsPerDelivery,
    rounds: rounds.map((r) => ({
      signed: r.signed.value,
      unsigned: r.unsigned.value,
      ratio: round(r.ratio, 2),
      cpuRatio: round(r.cpuRatio, 2),
    })),
    target: `signed ≥${DISPATCH_SIGNING_TARGET}× unsigned`,
    pass: ratio >= DISPATCH_SIGNING_TARGET,
    notes: [
      `baseline: the same burst to as many subscriptions of another tenant without signing secrets (unsigned)`,
      `median of ${rounds.length} rounds by ratio; ratios ${rounds.map((r) => round(r.ratio, 2)).join(', ')}`,
      `service CPU per delivery (median): signed ${cpuMsPerDelivery.signed} ms, unsigned ${cpuMsPerDelivery.unsigned} ms` +
        ` (signed/unsigned per round: ${rounds.map((r) => round(r.cpuRatio, 2)).join(', ')})`,
    ],
  });
}
