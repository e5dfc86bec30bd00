// Figure two-instances (issue 28's capacity model, checked once): the dispatch burst with one
// service instance, then with a second instance of the same build on the same database (claiming
// from the same outbox), in the same run. What the model predicts: the CPU per delivery of the
// service (both instances added up) and of PostgreSQL stays what one instance costs; on this
// 2-core machine the throughput cannot double (both instances, PostgreSQL and the receiver share
// the cores), so the CPU per delivery is the check, the throughput only context.
import { join } from 'node:path';
import { CpuMeter } from '../lib/cpu.mjs';
import { codesFor, median, runServiceDispatch } from '../lib/dispatch.mjs';
import { round } from '../lib/report.mjs';
import { ctx, log, size } from '../lib/run-context.mjs';
import { startService } from '../lib/service.mjs';
import { seedReceiverTenant } from '../lib/setup.mjs';

const ROUNDS = 2;

/** The second instance: the first one's command and settings, on the first one's database. */
async function startSecondInstance() {
  const options = ctx.serviceOptions(join(ctx.tmp, 'data-2'));
  return startService({
    ...options,
    logFile: join(ctx.tmp, 'service-2.log'),
    env: { ...options.env, DATABASE_URL: ctx.databaseUrl },
  });
}

/** One burst, with the CPU of each instance and of PostgreSQL per delivery. */
async function burst(range, label, second) {
  const meter = new CpuMeter(
    { first: () => ctx.service.pid, second: () => second?.pid, postgres: () => ctx.postmasterPid },
    new Set(['postgres']),
  ).start();
  const run = await runServiceDispatch(range, codesFor(label, size.dispatchEvents));
  const { seconds } = meter.stop();
  const perDelivery = (s) => (s === undefined ? undefined : round((s * 1000) / run.expected, 3));
  const service = (seconds.first ?? 0) + (seconds.second ?? 0);
  const result = {
    value: round(run.expected / ((run.done.at - run.start) / 1000)),
    serviceMs: perDelivery(service),
    firstMs: perDelivery(seconds.first),
    secondMs: perDelivery(seconds.second),
    postgresMs: perDelivery(seconds.postgres),
    failed: run.done.failed,
    timedOut: run.done.timedOut ?? false,
  };
  log(
    `two-instances ${label}: ${result.value} deliveries/s, service ${result.serviceMs} ms ` +
      `(${result.firstMs} + ${result.secondMs ?? 0}), PostgreSQL ${result.postgresMs} ms per delivery`,
  );
  return result;
}

const medianOf = (runs, key) => median(runs.map((r) => r[key]));

export async function twoInstancesFigure(target) {
  ctx.phase = 'two-instances';
  const range = await seedReceiverTenant('bench-two', size.dispatchSubscriptions);
  await runServiceDispatch(range, codesFor('TWO-WARM', size.dispatchWarmEvents));
  const one = [];
  for (let k = 1; k <= ROUNDS; k++) one.push(await burst(range, `TWO-1-${k}`));
  const second = await startSecondInstance();
  const two = [];
  try {
    await runServiceDispatch(range, codesFor('TWO-WARM2', size.dispatchWarmEvents));
    for (let k = 1; k <= ROUNDS; k++) two.push(await burst(range, `TWO-2-${k}`, second));
  } finally {
    await second.stop();
  }
  const summary = (runs) => ({
    value: medianOf(runs, 'value'),
    serviceMs: medianOf(runs, 'serviceMs'),
    postgresMs: medianOf(runs, 'postgresMs'),
  });
  const single = summary(one);
  const double = summary(two);
  ctx.figures.push({
    figure: 'two-instances',
    unit: 'deliveries/s',
    value: double.value,
    baseline: single.value,
    ratio: round(double.value / single.value, 2),
    baselines: { 'one instance': { value: single.value, unit: 'deliveries/s' } },
    cpuMsPerDelivery: { one: single, two: double },
    rounds: { one, two },
    target,
    pass: null,
    notes: [
      `CPU per delivery (median of ${ROUNDS}), one → two instances: service ${single.serviceMs} → ${double.serviceMs} ms, ` +
        `PostgreSQL ${single.postgresMs} → ${double.postgresMs} ms`,
      'two instances on one 2-core machine share its cores: the CPU per delivery is the check, not the throughput',
      ...[...one, ...two]
        .filter((r) => r.failed || r.timedOut)
        .map((r) => `a burst FAILED or timed out: ${JSON.stringify(r)}`),
    ],
  });
}
