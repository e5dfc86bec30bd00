import type { Postgres } from '../database/postgres';
import type { PendingJobs } from '../metrics/metrics.service';

// The outbox holds only pending jobs, so counting it is cheap: read on each /metrics scrape.
const PENDING_JOBS_SQL = `
  SELECT count(*)::int AS count,
    COALESCE(EXTRACT(EPOCH FROM now() - min(created_at)), 0)::float8 AS "oldestAgeSeconds"
  FROM webhook_jobs`;

export async function readPendingJobs(postgres: Postgres): Promise<PendingJobs> {
  const [row] = await postgres.query<PendingJobs>('webhook_jobs_pending', PENDING_JOBS_SQL, []);
  return row;
}
