// Figure backlog: another tenant's paced stream with and without a backlog of jobs pending for a
// receiver that never answers.
import { TARGETS } from '../lib/config.mjs';
import { codesFor, runServiceDispatch } from '../lib/dispatch.mjs';
import { withCpu } from '../lib/measure.mjs';
import { ipcRequest } from '../lib/processes.mjs';
import { latencyBesideBaseline } from '../lib/report.mjs';
import { ctx, EVENT_TYPE, licence, log, now, size, sleep } from '../lib/run-context.mjs';
import { insertBacklog } from '../lib/seed.mjs';
import { seedReceiverTenant } from '../lib/setup.mjs';

const HANG_TENANT = 'bench-backlog-hang';

async function insertHangingSubscription() {
  const { rows } = await ctx.pool.query(
    `INSERT INTO subscriptions (tenant, active, name, url, events)
     VALUES ($1, true, 'Bench hanging receiver', $2, ARRAY[$3]::varchar(64)[]) RETURNING id`,
    [HANG_TENANT, `https://127.0.0.1:${ctx.hangPort}/hooks/hang`, EVENT_TYPE],
  );
  return rows[0].id;
}

const pendingJobs = async (hangId) =>
  (await ctx.pool.query('SELECT count(*)::int AS n FROM webhook_jobs WHERE subscription_id = $1', [hangId]))
    .rows[0].n;

/** Inserts the backlog; resolves once the hanging receiver holds requests: the jobs and how many pend. */
async function insertHangingBacklog(hangId) {
  const started = now();
  const jobs = await insertBacklog(ctx.pool, {
    subscriptionId: hangId,
    tenant: HANG_TENANT,
    jobs: size.backlogJobs,
    eventType: EVENT_TYPE,
    licence,
  });
  // The worker meets the backlog first: the stream starts once the hanging receiver holds requests.
  const deadline = now() + 5000;
  while ((await ipcRequest(ctx.receiver, { cmd: 'hung' })).open === 0 && now() < deadline) await sleep(20);
  const pendingBefore = await pendingJobs(hangId);
  log(
    `backlog: ${jobs.toLocaleString('en-US')} jobs inserted in ${Math.round(now() - started)} ms; ` +
      `${pendingBefore.toLocaleString('en-US')} pending as the stream starts`,
  );
  return { jobs, pendingBefore };
}

function backlogRecord({ service, baseline, jobs, pendingBefore, pendingAfter, hung, n }, target) {
  const eventsPerS = size.backlogRatePerS;
  const { p50, p99 } = service.latency;
  const notes = [
    `${eventsPerS} events/s of bench-backlog for ${size.backlogDurationS} s while ${pendingBefore.toLocaleString('en-US')} ` +
      `(at the end ${pendingAfter.toLocaleString('en-US')}) jobs of another tenant were pending for a receiver that ` +
      `never answers (${hung.total} requests reached it, ${hung.open} still open); baseline: the same stream without them`,
    'publish-to-receipt: from sending POST /admin/licence-events to the receiver reading the body',
  ];
  if (service.done.timedOut)
    notes.push(
      `timed out after ${size.waitTimeoutS} s: ${service.done.received} of ${service.expected} received`,
    );
  return {
    figure: 'backlog',
    ...latencyBesideBaseline(service.latency, baseline.latency),
    backlogJobs: jobs,
    pendingBefore,
    pendingAfter,
    hangingRequests: hung,
    ratePerS: eventsPerS,
    events: n,
    latency: service.latency,
    publishAck: service.publishAck,
    target,
    pass:
      !service.done.timedOut && p50 !== null && p50 <= TARGETS.backlogP50Ms && p99 <= TARGETS.backlogP99Ms,
    notes,
  };
}

/**
 * Another tenant's paced stream (one subscription, `backlogRatePerS` events a second) with and
 * without `backlogJobs` jobs pending for a receiver that never answers (the receiver's hanging
 * port, its own origin; jobs inserted with SQL). The service holds the hanging requests until its
 * WEBHOOK_TIMEOUT_MS; the bench then deletes the hanging subscription (its jobs go with it) and
 * drops the hung connections.
 */
export async function backlogFigure(targets) {
  ctx.phase = 'backlog';
  const eventsPerS = size.backlogRatePerS;
  const paceMs = 1000 / eventsPerS;
  const n = Math.round(size.backlogDurationS * eventsPerS);
  const range = await seedReceiverTenant('bench-backlog', 1);
  const hangId = await insertHangingSubscription();
  log(`backlog: ${n} events of bench-backlog, one every ${paceMs} ms, without and then with the backlog`);
  await runServiceDispatch(range, codesFor('BWARM', eventsPerS), { paceMs });
  const paced = (name, prefix) =>
    withCpu(
      name,
      () => runServiceDispatch(range, codesFor(prefix, n), { paceMs }),
      (r) => r.expected,
    );
  const baseline = await paced('backlog: paced, no backlog', 'B0');
  try {
    const { jobs, pendingBefore } = await insertHangingBacklog(hangId);
    const service = await paced(`backlog: paced, ${jobs.toLocaleString('en-US')} pending`, 'B1');
    const pendingAfter = await pendingJobs(hangId);
    const hung = await ipcRequest(ctx.receiver, { cmd: 'hung' });
    log(
      `backlog: p50 ${service.latency.p50} ms, p99 ${service.latency.p99} ms; without: p50 ${baseline.latency.p50} ms, p99 ${baseline.latency.p99} ms`,
    );
    const run = { service, baseline, jobs, pendingBefore, pendingAfter, hung, n };
    ctx.figures.push(backlogRecord(run, targets.backlog));
  } finally {
    await ctx.pool.query('DELETE FROM subscriptions WHERE id = $1', [hangId]);
    await ipcRequest(ctx.receiver, { cmd: 'release' });
  }
}
