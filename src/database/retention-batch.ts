import type { QueryRunner } from 'typeorm';

/** What one batch of a retention walk did: rows are visited in id order, oldest first. */
export interface RetentionBatch {
  /** Rows visited (at most the batch size): fewer means the table's end was reached. */
  examined: number;
  deleted: number;
  /** The highest id visited: the next batch starts after it. */
  lastId: string | null;
  /** A visited row was not old enough: the rows after it are younger still. */
  reachedCutoff: boolean;
}

/** The SELECT that ends each retention statement, over its `batch` (id, expired) and `deleted` CTEs. */
export const RETENTION_BATCH_RESULT = `
  SELECT count(*)::int AS examined, (SELECT count(*) FROM deleted)::int AS deleted,
    max(id)::text AS "lastId", COALESCE(NOT bool_and(expired), false) AS "reachedCutoff"
  FROM batch`;

/** One batch: rows older than `cutoff` among the next `limit` after id `afterId`, deleted. */
export type RetentionStatement = (
  runner: QueryRunner,
  cutoff: Date,
  afterId: string,
  limit: number,
) => Promise<RetentionBatch>;

/** A retention statement from its SQL: parameters $1 cutoff, $2 afterId, $3 limit. */
export const retentionStatement =
  (sql: string): RetentionStatement =>
  async (runner, cutoff, afterId, limit) => {
    const [batch] = (await runner.query(sql, [cutoff, afterId, limit])) as RetentionBatch[];
    return batch;
  };
