// Figure backlog-rate: another tenant's paced stream with and without one rate-limited
// subscription holding a backlog of jobs that wait for their slots (contract section 11).
import { TARGETS } from '../lib/config.mjs';
import { codesFor, runServiceDispatch } from '../lib/dispatch.mjs';
import { withCpu } from '../lib/measure.mjs';
import { latencyBesideBaseline } from '../lib/report.mjs';
import { ctx, EVENT_TYPE, licence, log, now, size } from '../lib/run-context.mjs';
import { insertBacklog } from '../lib/seed.mjs';
import { seedReceiverTenant } from '../lib/setup.mjs';

const LIMITED_TENANT = 'bench-backlog-rate-limited';
const RATE_JOBS = 10_000;
const RATE_PER_S = 10;

async function insertLimitedSubscription() {
  const { rows } = await ctx.pool.query(
    `INSERT INTO subscriptions (tenant, active, name, url, events, max_deliveries_per_second)
     VALUES ($1, true, 'Bench rate-limited receiver', $2, ARRAY[$3]::varchar(64)[], $4) RETURNING id`,
    [
      LIMITED_TENANT,
      `https://127.0.0.1:${ctx.receiverPorts[0]}/hooks/${LIMITED_TENANT}/1`,
      EVENT_TYPE,
      RATE_PER_S,
    ],
  );
  return rows[0].id;
}

const pendingJobs = async (id) =>
  (await ctx.pool.query('SELECT count(*)::int AS n FROM webhook_jobs WHERE subscription_id = $1', [id]))
    .rows[0].n;

/** Deliveries of the limited subscription so far, and the most that started in one second. */
async function limitedDeliveries(id) {
  const { rows } = await ctx.pool.query(
    `SELECT count(*)::int AS n,
       (SELECT coalesce(max(c), 0)::int FROM (
          SELECT count(*) OVER (ORDER BY sent_at RANGE BETWEEN CURRENT ROW AND interval '999 milliseconds' FOLLOWING) AS c
          FROM webhook_deliveries WHERE subscription_id = $1) w) AS "mostInOneSecond"
     FROM webhook_deliveries WHERE subscription_id = $1`,
    [id],
  );
  return rows[0];
}

/**
 * `backlogRatePerS` events a second of bench-backlog (one subscription), without and then with
 * RATE_JOBS jobs of another tenant's subscription limited to RATE_PER_S deliveries a second, queued
 * ahead of the stream at the head of the outbox (inserted with SQL). Target: the stream's latency
 * stays within the backlog figure's (the claim's window skips the limited subscription while it has
 * no slot, so its waiting jobs do not eat the claims).
 */
export async function backlogRateFigure(target) {
  ctx.phase = 'backlog-rate';
  const eventsPerS = size.backlogRatePerS;
  const paceMs = 1000 / eventsPerS;
  const n = Math.round(size.backlogDurationS * eventsPerS);
  // A tenant of its own: the backlog figure's tenant already has its subscription in a full run.
  const range = await seedReceiverTenant('bench-backlog-rate', 1);
  const limitedId = await insertLimitedSubscription();
  await runServiceDispatch(range, codesFor('RWARM', eventsPerS), { paceMs });
  const paced = (name, prefix) =>
    withCpu(
      name,
      () => runServiceDispatch(range, codesFor(prefix, n), { paceMs }),
      (r) => r.expected,
    );
  const baseline = await paced('backlog-rate: paced, no backlog', 'R0');
  try {
    const started = now();
    const jobs = await insertBacklog(ctx.pool, {
      subscriptionId: limitedId,
      tenant: LIMITED_TENANT,
      jobs: RATE_JOBS,
      eventType: EVENT_TYPE,
      licence,
    });
    log(
      `backlog-rate: ${jobs} jobs limited to ${RATE_PER_S}/s inserted in ${Math.round(now() - started)} ms`,
    );
    const service = await paced(`backlog-rate: paced, ${jobs} waiting at ${RATE_PER_S}/s`, 'R1');
    const limited = await limitedDeliveries(limitedId);
    const pendingAfter = await pendingJobs(limitedId);
    ctx.figures.push(
      backlogRateResult({ target, baseline, service, limited, pendingAfter, jobs, eventsPerS, n }),
    );
  } finally {
    await ctx.pool.query('DELETE FROM subscriptions WHERE id = $1', [limitedId]);
  }
}

/**
 * The figure's record: the stream's latency beside the limited subscription's waiting jobs, against
 * the same stream without them.
 */
function backlogRateResult({ target, baseline, service, limited, pendingAfter, jobs, eventsPerS, n }) {
  const { p50, p99 } = service.latency;
  log(
    `backlog-rate: p50 ${p50} ms, p99 ${p99} ms; without: p50 ${baseline.latency.p50} ms, ` +
      `p99 ${baseline.latency.p99} ms; the limited subscription: ${limited.n} delivered, ` +
      `at most ${limited.mostInOneSecond} in one second (sent_at), ${pendingAfter} waiting`,
  );
  return {
    figure: 'backlog-rate',
    ...latencyBesideBaseline(service.latency, baseline.latency),
    backlogJobs: jobs,
    limitedPerS: RATE_PER_S,
    limitedDelivered: limited.n,
    limitedMostInOneSecond: limited.mostInOneSecond,
    pendingAfter,
    ratePerS: eventsPerS,
    events: n,
    latency: service.latency,
    target,
    pass:
      !service.done.timedOut && p50 !== null && p50 <= TARGETS.backlogP50Ms && p99 <= TARGETS.backlogP99Ms,
    notes: [
      `${eventsPerS} events/s of bench-backlog for ${size.backlogDurationS} s while ${jobs.toLocaleString('en-US')} ` +
        `jobs of another tenant waited for a subscription limited to ${RATE_PER_S}/s; baseline: the same stream without them`,
      'publish-to-receipt: from sending POST /admin/licence-events to the receiver reading the body',
    ],
  };
}
