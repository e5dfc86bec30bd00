// Bulk rows for the backlog and history figures, written with generate_series straight into the
// service's tables in the shape of migrations/1763700200000-CreateDispatcher.ts: what tens of
// thousands of publishes or deliveries would leave behind, in seconds.
import { DELIVERIES_TABLE } from './config.mjs';

const CODE = '__BENCH_CODE__';

/** The body the publisher stores for one event (`payload`), with a placeholder for the licence code. */
function payloadTemplate(eventType, tenant, licence) {
  return JSON.stringify({
    eventType,
    timestamp: new Date().toISOString(),
    tenant,
    licence: licence(CODE),
    error: null,
  });
}

/**
 * The CTE `events`: $4 events of type $1 and tenant $2 with the payload template $3, the licence
 * codes `<prefix>-1` to `<prefix>-$4`; it returns their ids. Parameters: eventParams.
 */
const eventsCte = (prefix) => `events AS (
  INSERT INTO webhook_events (event_type, tenant, occurred_at, payload)
  SELECT $1, $2, now(), replace($3, '"${CODE}"', to_json('${prefix}-' || g)::text)::json
  FROM generate_series(1, $4) AS g
  RETURNING id
)`;
const eventParams = ({ eventType, tenant, licence }, n) => [
  eventType,
  tenant,
  payloadTemplate(eventType, tenant, licence),
  n,
];

/**
 * `jobs` events of `tenant`, each with one pending job for `subscriptionId`, as the outbox writes
 * them (migration CreateDispatcher: webhook_events, webhook_jobs); one statement, so the insert
 * trigger sends one NOTIFY.
 */
export async function insertBacklog(pool, options) {
  const { rowCount } = await pool.query(
    `WITH ${eventsCte('BENCH-BACKLOG')}
     INSERT INTO webhook_jobs (event_id, subscription_id)
     SELECT id, $5 FROM events ORDER BY id`,
    [...eventParams(options, options.jobs), options.subscriptionId],
  );
  return rowCount;
}

/**
 * `records` delivery attempts of `subscriptionId` (one per event of its tenant, every 20th
 * FAILED) among `total` records in all, the others spread over every other subscription, sent over
 * the last 30 days and interleaved in the heap as records written over time would be. The events
 * are written first (the records name them); the others' records reuse them. The per-subscription
 * record counts (migration WebhookDeliveryCounts, the history's totalElements) are kept by the
 * table's statement trigger, as for the service's own inserts.
 */
export async function insertHistory(pool, options) {
  const client = await pool.connect();
  try {
    await client.query('BEGIN');
    const inserted = await insertHistoryRows(client, options);
    await client.query('COMMIT');
    return inserted;
  } catch (error) {
    await client.query('ROLLBACK').catch(() => undefined);
    throw error;
  } finally {
    client.release();
  }
}

async function insertHistoryRows(client, options) {
  const { subscriptionId, records, total, eventType } = options;
  const spacing = Math.max(1, Math.floor(total / records));
  const { rows } = await client.query(
    `WITH ${eventsCte('BENCH-HISTORY')} SELECT array_agg(id ORDER BY id) AS ids FROM events`,
    eventParams(options, records),
  );
  const { rowCount } = await client.query(
    `INSERT INTO "${DELIVERIES_TABLE}"
       (event_id, subscription_id, event_type, status, http_status_code, error_message, sent_at, created_at)
     SELECT e.ids[least(greatest(g / $4, 1), cardinality(e.ids))],
            CASE WHEN g % $4 = 0 THEN $1 ELSE o.ids[1 + g % cardinality(o.ids)] END,
            $5,
            CASE WHEN g % ($4 * 20) = 0 THEN 'FAILED' ELSE 'SUCCESS' END,
            CASE WHEN g % ($4 * 20) = 0 THEN 500 ELSE 200 END,
            CASE WHEN g % ($4 * 20) = 0 THEN 'HTTP 500 Internal Server Error' END,
            t.at, t.at + interval '40 milliseconds'
     FROM (SELECT $2::bigint[] AS ids) AS e,
          (SELECT array_agg(id) AS ids FROM subscriptions WHERE id <> $1) AS o,
          generate_series(1, $3) AS g,
          LATERAL (SELECT now() - ($3 - g) * (interval '30 days' / $3) AS at) AS t`,
    [subscriptionId, rows[0].ids, total, spacing, eventType],
  );
  return rowCount;
}
