// The database's own maintenance (autovacuum, checkpoints) around a figure: settle the earlier
// figures' leftovers before it, and name what ran during each of its rounds.
import { ctx, log, now, sleep } from './run-context.mjs';

/** Longest wait for the earlier figures' maintenance to end (settleDatabase). */
const SETTLE_MS = 60_000;

/**
 * The earlier figures' leftovers are not the next figure's (in a full run, the API figures have
 * written subscriptions, history millions of records): a VACUUM (ANALYZE) of the database, which
 * leaves autovacuum nothing of theirs to start on during the figure's rounds (a wait for the
 * running workers alone let one start on webhook_events in a keyed round of publish-idempotent,
 * whose PostgreSQL CPU it raised by half), a checkpoint, then a wait (at most SETTLE_MS) until no
 * autovacuum worker runs. The figure's own rows still start autovacuum during it, as in production.
 * Logs and returns what it did and waited for, under `label` (the figure).
 */
export async function settleDatabase(label) {
  const settled = await settle();
  log(`${label}: settled in ${settled}`);
  return settled;
}

async function settle() {
  const started = now();
  // Tables the role does not own are skipped with a warning, not an error.
  await ctx.pool.query('VACUUM (ANALYZE)');
  const vacuumed = `vacuum ${Math.round(now() - started)} ms`;
  // A server's role may lack the right (pg_checkpoint): then only the wait.
  const checkpoint = await ctx.pool.query('CHECKPOINT').then(
    () => `${vacuumed}, checkpoint`,
    (error) => `${vacuumed}, no checkpoint (${error.message})`,
  );
  for (;;) {
    const running = await runningAutovacuum();
    const waited = Math.round(now() - started);
    if (running.length === 0) return `${waited} ms (${checkpoint}, no autovacuum running)`;
    if (waited > SETTLE_MS) return `${waited} ms, then measured while autovacuum ran: ${running.join('; ')}`;
    await sleep(500);
  }
}

/** What the autovacuum workers are running now (pg_stat_activity), one entry a worker. */
async function runningAutovacuum() {
  const { rows } = await ctx.pool.query(
    `SELECT query FROM pg_stat_activity WHERE backend_type = 'autovacuum worker'`,
  );
  return rows.map((row) => row.query);
}

/** Autovacuum and autoanalyze runs finished so far, by table (pg_stat_user_tables). */
async function maintenanceRuns() {
  const { rows } = await ctx.pool.query(
    `SELECT relname, autovacuum_count + autoanalyze_count AS runs FROM pg_stat_user_tables`,
  );
  return new Map(rows.map((row) => [row.relname, Number(row.runs)]));
}

/**
 * Runs `measure` (one round of a figure) and logs the autovacuum and autoanalyze runs that ended
 * during it, and any still running at its end: `{ result, maintenance }`, the latter a note.
 */
export async function withMaintenance(label, measure) {
  const before = await maintenanceRuns();
  const result = await measure();
  const after = await maintenanceRuns();
  const running = await runningAutovacuum();
  const ended = [...after].filter(([table, runs]) => runs > (before.get(table) ?? 0)).map(([table]) => table);
  const maintenance = `${label}: autovacuum ended on ${ended.join(', ') || 'no table'}, ${running.length} running at its end`;
  log(maintenance);
  return { result, maintenance };
}
