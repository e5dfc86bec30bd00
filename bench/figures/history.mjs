// Figure history: a page of the delivery history of a subscription holding 200,000 records among
// 2,000,000, beside api-read's page measured just before it, in the same state.
import { DELIVERIES_TABLE, TARGETS } from '../lib/config.mjs';
import { measureApi } from '../lib/measure.mjs';
import { round } from '../lib/report.mjs';
import { ctx, EVENT_TYPE, licence, log, now, size, unavailable } from '../lib/run-context.mjs';
import { insertHistory } from '../lib/seed.mjs';
import { call } from '../lib/service.mjs';
import { apiReadSpec } from './api.mjs';

export const historyTarget = () => `≥${TARGETS.historyRatio}× api-read`;

/** Inserts the history records (with SQL) of bench-main's first subscription: its id and how many. */
async function seedHistory() {
  ctx.phase = 'history (seeding)';
  const { rows } = await ctx.pool.query(
    `SELECT min(id) AS id FROM subscriptions WHERE tenant = 'bench-main'`,
  );
  const { id } = rows[0];
  await ctx.pool.query(`TRUNCATE "${DELIVERIES_TABLE}"`);
  const started = now();
  const inserted = await insertHistory(ctx.pool, {
    subscriptionId: id,
    tenant: 'bench-main',
    records: size.historyRecords,
    total: size.historyTotal,
    eventType: EVENT_TYPE,
    licence,
  });
  // As autovacuum would have by then: the visibility map lets counts be index-only scans.
  await ctx.pool.query(`VACUUM (ANALYZE) "${DELIVERIES_TABLE}"`);
  log(
    `history: inserted ${inserted.toLocaleString('en-US')} delivery records ` +
      `(${size.historyRecords.toLocaleString('en-US')} of subscription ${id}) in ${Math.round(now() - started)} ms`,
  );
  return { id, inserted };
}

function historyNotes(service, page, inserted) {
  const apiRead = ctx.figures.find((f) => f.figure === 'api-read' && f.value);
  const notes = [
    `${size.historyRecords.toLocaleString('en-US')} records of the subscription among ${inserted.toLocaleString('en-US')}; ` +
      'baseline: api-read (a page of bench-main’s subscriptions) measured just before, on the same database',
  ];
  const cpu = (m) => `service ${m.cpuMsPerRequest.service} ms + PostgreSQL ${m.cpuMsPerRequest.postgres} ms`;
  notes.push(`CPU per request: history ${cpu(service)}; api-read ${cpu(page)}`);
  if (apiRead)
    notes.push(
      `against the api-read row of this run (${apiRead.value} req/s): ${round(service.value / apiRead.value, 2)}`,
    );
  if (service.non2xx || service.errors)
    notes.push(`service: ${service.non2xx} non-2xx, ${service.errors} errors`);
  return notes;
}

async function measureHistory(tokens, id, inserted) {
  const spec = {
    figure: 'history',
    method: 'GET',
    path: `/webhooks/subscriptions/${id}/deliveries?size=20`,
    token: tokens.history,
  };
  const res = await call(ctx.service.base, spec.method, spec.path, { token: spec.token });
  if (res.status !== 200)
    return unavailable('history', `${spec.method} ${spec.path} answered ${res.status}`, historyTarget());
  ctx.phase = 'history';
  const page = await measureApi('history: api-read service', ctx.service.base, apiReadSpec(tokens.reader));
  const service = await measureApi('history service', ctx.service.base, spec);
  const ratio = page.value ? round(service.value / page.value, 2) : null;
  ctx.figures.push({
    figure: 'history',
    request: `${spec.method} ${spec.path}`,
    unit: 'req/s',
    value: service.value,
    p50: service.p50,
    p99: service.p99,
    baseline: page.value,
    ratio,
    baselines: { 'api-read': page },
    service,
    records: size.historyRecords,
    totalRecords: inserted,
    connections: size.connections,
    durationS: size.durationS,
    target: historyTarget(),
    pass: ratio === null ? undefined : ratio >= TARGETS.historyRatio,
    notes: historyNotes(service, page, inserted),
  });
}

/**
 * It runs last: the earlier figures' records are removed first (the database is the bench's own),
 * so the table holds exactly these, and these are removed afterwards.
 */
export async function historyFigure(tokens) {
  const { id, inserted } = await seedHistory();
  try {
    await measureHistory(tokens, id, inserted);
  } finally {
    ctx.phase = 'history (clean-up)';
    await ctx.pool.query(`TRUNCATE "${DELIVERIES_TABLE}"`);
  }
}
