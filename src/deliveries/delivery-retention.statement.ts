import { RETENTION_BATCH_RESULT, retentionStatement } from '../database/retention-batch';

/**
 * Deletes the delivery records older than the cutoff among the next `limit` after `afterId`.
 * Records are appended in time order, so the walk follows the primary key and stops at the first
 * young one: no index on sent_at to keep up on every delivery.
 */
const DELETE_EXPIRED_DELIVERIES_SQL = `
  WITH batch AS MATERIALIZED (
    SELECT id, sent_at < $1 AS expired FROM webhook_deliveries WHERE id > $2 ORDER BY id LIMIT $3
  ), deleted AS (
    DELETE FROM webhook_deliveries WHERE id = ANY (ARRAY(SELECT id FROM batch WHERE expired)) RETURNING 1
  )
  ${RETENTION_BATCH_RESULT}`;

export const deleteExpiredDeliveries = retentionStatement(DELETE_EXPIRED_DELIVERIES_SQL);
