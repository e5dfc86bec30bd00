// Figure publish-idempotent: POST /admin/licence-events with a new Idempotency-Key on every request,
// against the same publishes without a key, in alternating rounds of the same run (target ≥ 0.9).
import { TARGETS } from '../lib/config.mjs';
import { measureApi } from '../lib/measure.mjs';
import { round } from '../lib/report.mjs';
import { ctx, EVENT_TYPE, licence, unavailable } from '../lib/run-context.mjs';
import { call } from '../lib/service.mjs';

const ROUNDS = 2;
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
    setupRequest: keyed
      ? (req) => ({ ...req, headers: { ...req.headers, 'idempotency-key': `${prefix}${next++}` } })
      : undefined,
  };
};

/** The rounds' requests and seconds added up: a rate over all of them, with the last round's latencies. */
function combined(runs) {
  const requests = runs.reduce((n, r) => n + r.requests, 0);
  const seconds = runs.reduce((s, r) => s + r.durationS, 0);
  return { ...runs.at(-1), value: round(requests / seconds), requests, durationS: seconds, rounds: runs };
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
  const plain = [];
  const keyed = [];
  for (let i = 1; i <= ROUNDS; i++) {
    plain.push(await measureApi(`publish without keys (round ${i})`, ctx.service.base, publishSpec(false)));
    keyed.push(await measureApi(`publish with keys (round ${i})`, ctx.service.base, publishSpec(true)));
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
      `${ROUNDS} alternating rounds each, tenant ${TENANT} without subscriptions (no deliveries)`,
      `CPU per publish: with keys service ${withKeys.cpuMsPerRequest.service} ms + PostgreSQL ` +
        `${withKeys.cpuMsPerRequest.postgres} ms; without, ${withoutKeys.cpuMsPerRequest.service} ms + ` +
        `${withoutKeys.cpuMsPerRequest.postgres} ms (last round)`,
    ],
  });
}
