import { RETENTION_BATCH_RESULT, retentionStatement } from '../database/retention-batch';

/**
 * Deletes the events older than the cutoff among the next `limit` after `afterId` (id order is
 * time order), except those with a pending job (never dropped by retention, contract section 8)
 * and those a delivery record still refers to (a resend is younger than its event: the event's
 * delete would take the record with it). A completion deletes a job and writes its record in one
 * statement, so this statement's snapshot sees the one or the other: an event is never deleted
 * while either refers to it, which is what keeps the records' event_id without a foreign key
 * (migration DispatchReferencesByStatements). Reads webhook_deliveries, the Deliveries module's
 * table, so the check and the delete are one statement.
 */
const DELETE_EXPIRED_EVENTS_SQL = `
  WITH batch AS MATERIALIZED (
    SELECT id, created_at < $1 AS expired FROM webhook_events WHERE id > $2 ORDER BY id LIMIT $3
  ), deleted AS (
    DELETE FROM webhook_events e
    WHERE e.id = ANY (ARRAY(SELECT id FROM batch WHERE expired))
      AND NOT EXISTS (SELECT 1 FROM webhook_jobs j WHERE j.event_id = e.id)
      AND NOT EXISTS (SELECT 1 FROM webhook_deliveries d WHERE d.event_id = e.id)
    RETURNING 1
  )
  ${RETENTION_BATCH_RESULT}`;

export const deleteExpiredEvents = retentionStatement(DELETE_EXPIRED_EVENTS_SQL);
