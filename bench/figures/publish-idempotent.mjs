// Figure publish-idempotent: POST /admin/licence-events with a new Idempotency-Key on every request,
// against the same publishes without a key, in alternating rounds (ABBA) of the same run (target ≥ 0.9).
import { TARGETS } from '../lib/config.mjs';
import { settleDatabase, withMaintenance } from '../lib/maintenance.mjs';
import { measureApi } from '../lib/measure.mjs';
import { round } from '../lib/report.mjs';
import { ctx, EVENT_TYPE, licence, unavailable } from '../lib/run-context.mjs';
import { call } from '../lib/service.mjs';

const ROUNDS = 4;
/** No subscription matches it: the figure is the publish (event row, key index, hash), not deliveries. */
const TENANT = 'bench-publish';

export const publishIdempotentTarget = () => `≥${TARGETS.publishIdempotentRatio}× without keys`;

const publishSpec = (keyed) => {
  let next = 0;
  const prefix = `bench-${Date.now().toString(36)}-`;
  return {
    figure: 'publish-idempotent',
    method: 'POST',
    path: '/admin/licence-events',
    token: ctx.adminToken,
    body: { eventType: EVENT_TYPE, tenant: TENANT, licence: licence('BENCH-PUBLISH') },
    // Every request a new key: each is a first publication (a replay writes nothing and is cheaper).
    // Without keys each request is built the same way, so the load generator (on the same two cores)
    // does the same work on both sides: autocannon reuses one prebuilt request when none is set.
    setupRequest: keyed
      ? (req) => ({ ...req, headers: { ...req.headers, 'idempotency-key': `${prefix}${next++}` } })
      : (req) => ({ ...req, headers: { ...req.headers } }),
  };
};

/** The rounds' requests and seconds added up: a rate over all of them, with the last round's latencies. */
function combined(runs) {
  const requests = runs.reduce((n, r) => n + r.requests, 0);
  const seconds = runs.reduce((s, r) => s + r.durationS, 0);
  return { ...runs.at(-1), value: round(requests / seconds), requests, durationS: seconds, rounds: runs };
}

/** The load generator's CPU per request in each round. */
const generatorCpu = (runs) => runs.map((r) => r.cpuMsPerRequest.bench).join(', ');

/** measureApi, with the autovacuum and autoanalyze runs that ended during it (a note). */
async function measureRound(label, spec) {
  const { result, maintenance } = await withMaintenance(label, () =>
    measureApi(label, ctx.service.base, spec),
  );
  return { ...result, maintenance };
}

export async function publishIdempotentFigure() {
  const check = await call(ctx.service.base, 'POST', '/admin/licence-events', {
    token: ctx.adminToken,
    body: publishSpec(false).body,
  });
  if (check.status !== 202)
    return unavailable(
      'publish-idempotent',
      `POST /admin/licence-events answered ${check.status}`,
      publishIdempotentTarget(),
    );
  ctx.phase = 'publish-idempotent';
  const settled = await settleDatabase('publish-idempotent');
  const plain = [];
  const keyed = [];
  // In ABBA order (without, with, with, without, …): a machine that slows or quickens through the
  // figure weighs on both sides alike, rather than always on the side measured second.
  for (let i = 1; i <= ROUNDS; i++) {
    for (const withKey of i % 2 ? [false, true] : [true, false]) {
      const label = `publish ${withKey ? 'with' : 'without'} keys (round ${i})`;
      (withKey ? keyed : plain).push(await measureRound(label, publishSpec(withKey)));
    }
  }
  const [withKeys, withoutKeys] = [combined(keyed), combined(plain)];
  const ratio = withoutKeys.value ? round(withKeys.value / withoutKeys.value, 2) : null;
  ctx.figures.push({
    figure: 'publish-idempotent',
    request: 'POST /admin/licence-events with a new Idempotency-Key each',
    unit: 'req/s',
    value: withKeys.value,
    p50: withKeys.p50,
    p99: withKeys.p99,
    baseline: withoutKeys.value,
    ratio,
    baselines: { 'without keys': withoutKeys },
    service: withKeys,
    target: publishIdempotentTarget(),
    pass: ratio === null ? undefined : ratio >= TARGETS.publishIdempotentRatio,
    notes: [
      `${ROUNDS} rounds each in ABBA order, tenant ${TENANT} without subscriptions (no deliveries); ` +
        `before them the database settled: ${settled}`,
      `CPU per publish: with keys service ${withKeys.cpuMsPerRequest.service} ms + PostgreSQL ` +
        `${withKeys.cpuMsPerRequest.postgres} ms; without, ${withoutKeys.cpuMsPerRequest.service} ms + ` +
        `${withoutKeys.cpuMsPerRequest.postgres} ms (last round)`,
      // The load generator does the same work per request on both sides: when its cost moves, the
      // machine's speed moved between the rounds, and the service's and PostgreSQL's costs with it.
      `the load generator's CPU per request, a control for the machine's speed: ` +
        `with keys ${generatorCpu(keyed)} ms, without ${generatorCpu(plain)} ms (by round)`,
      ...[...plain, ...keyed].map((r) => r.maintenance),
    ],
  });
}
