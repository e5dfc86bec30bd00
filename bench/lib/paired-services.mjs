/* global process */
// Two services measured in one run, in alternating rounds of the `dispatch` burst: the run's service
// and a second one started beside it, on a database of its own seeded alike. Each is idle while the
// other delivers, so both meet the same machine, round by round; a ratio taken within each round
// is what the machine's drift (CPU speed moving by ±10 % within minutes on these hosts) cannot
// move much. dispatch-traced (tracing on against off) and dispatch-ab (other node options,
// variables or build) are such pairs.
import { join } from 'node:path';
import pg from 'pg';
import { memoryOf, postmasterOf } from './cpu.mjs';
import { codesFor, median, runServiceDispatch } from './dispatch.mjs';
import { withCpu } from './measure.mjs';
import { onCleanup } from './processes.mjs';
import { round } from './report.mjs';
import { ctx, log, size } from './run-context.mjs';
import { embeddedDatabaseUrl, startService } from './service.mjs';
import { createDatabaseOnServer, login, seedReceiverTenant, seedSubscriptions } from './setup.mjs';

/** What a side of the comparison swaps into the run's context. */
const SIDE_FIELDS = ['service', 'pool', 'postmasterPid', 'databaseUrl', 'adminToken'];

const sideOf = () => Object.fromEntries(SIDE_FIELDS.map((f) => [f, ctx[f]]));

/**
 * The second service: the run's settings, with `env` and `nodeArgs` added, started from `root`'s
 * build when given (another checkout, built), on a database of its own.
 */
async function startSecondService({ name, env = {}, nodeArgs = [], root }) {
  const dataDir = join(ctx.tmp, `data-${name}`);
  const databaseUrl = process.env.DATABASE_URL
    ? await createDatabaseOnServer(process.env.DATABASE_URL)
    : undefined;
  const options = ctx.serviceOptions(dataDir);
  const service = await startService({
    ...options,
    ...(root ? { repoRoot: root } : {}),
    logFile: join(ctx.tmp, `service-${name}.log`),
    nodeArgs: [...options.nodeArgs, ...nodeArgs],
    env: { ...options.env, ...(databaseUrl ? { DATABASE_URL: databaseUrl } : {}), ...env },
  });
  const url = databaseUrl ?? embeddedDatabaseUrl(dataDir);
  const pool = new pg.Pool({ connectionString: url, max: 3 });
  pool.on('error', () => undefined);
  onCleanup(() => pool.end());
  const { rows } = await pool.query('SELECT pg_backend_pid() AS pid');
  return { service, pool, postmasterPid: postmasterOf(rows[0].pid), databaseUrl: url };
}

/**
 * Starts the second service (`second`: startSecondService's options), seeds its database as the
 * run's was, and a receiver tenant `tenant` on both. Sides are named `names` (the run's first).
 */
export async function startPair({ tenant, names, second }) {
  const first = sideOf();
  const other = await startSecondService(second);
  const ranges = { [names[0]]: await seedReceiverTenant(tenant, size.dispatchSubscriptions) };
  Object.assign(ctx, other);
  other.adminToken = ctx.adminToken = await login('bench-admin@example.com', ctx.adminPassword);
  await seedSubscriptions();
  ranges[names[1]] = await seedReceiverTenant(tenant, size.dispatchSubscriptions);
  Object.assign(ctx, first);
  const sides = { [names[0]]: first, [names[1]]: other };
  return {
    names,
    sides,
    ranges,
    /** The second service's own peak resident memory (VmHWM), MB. */
    secondPeakMb: () => round(memoryOf(other.service.pid)?.hwmMb, 1),
    stop: () => other.service.stop(),
  };
}

/** One round: each side's burst, in the order that alternates from round to round. */
async function pairedRound(pair, figure, k) {
  const [a, b] = pair.names;
  const runs = {};
  for (const side of k % 2 === 1 ? [a, b] : [b, a]) {
    Object.assign(ctx, pair.sides[side]);
    const run = await withCpu(
      `${figure} ${side} (round ${k})`,
      () => runServiceDispatch(pair.ranges[side], codesFor(`${figure}-${side}-${k}`, size.dispatchEvents)),
      (r) => r.expected,
    );
    run.value = round(run.expected / ((run.done.at - run.start) / 1000));
    if (run.done.timedOut || run.done.failed)
      throw new Error(`${figure} ${side} round ${k}: ${run.done.failed ?? 'timed out'} not delivered`);
    log(`${figure} ${side} (round ${k}): ${run.value} deliveries/s`);
    runs[side] = run;
  }
  const cpu = (side, of) => runs[side].cpu.msPerUnit[of];
  return {
    ...runs,
    ratio: runs[b].value / runs[a].value,
    cpuRatio: cpu(b, 'service') / cpu(a, 'service'),
    postgresRatio: cpu(b, 'postgres') / cpu(a, 'postgres'),
  };
}

/**
 * A warm-up burst by each side, then size.dispatchRounds rounds. Returns the rounds, the round of
 * median ratio (second side's deliveries a second over the first's), and each side's median CPU
 * per delivery (service and PostgreSQL, ms).
 */
export async function runPairedRounds(pair, figure) {
  const rounds = [];
  try {
    for (const side of pair.names) {
      Object.assign(ctx, pair.sides[side]);
      await runServiceDispatch(
        pair.ranges[side],
        codesFor(`${figure}-WARM-${side}`, size.dispatchWarmEvents),
      );
    }
    for (let k = 1; k <= size.dispatchRounds; k++) rounds.push(await pairedRound(pair, figure, k));
  } finally {
    Object.assign(ctx, pair.sides[pair.names[0]]);
  }
  const medianRound = [...rounds].sort((x, y) => x.ratio - y.ratio)[Math.floor(rounds.length / 2)];
  const cpuMs = (side, of) => median(rounds.map((r) => r[side].cpu.msPerUnit[of]));
  const perSide = (of) => Object.fromEntries(pair.names.map((side) => [side, cpuMs(side, of)]));
  return { rounds, medianRound, serviceMs: perSide('service'), postgresMs: perSide('postgres') };
}

/** The per-round ratios as notes' text, rounded: "0.95, 1.01, …". */
export const ratiosText = (rounds, key) => rounds.map((r) => round(r[key], 2)).join(', ');

/**
 * The order within a round weighs on these hosts: the side that goes second has met the machine as
 * the first left it (a busier PostgreSQL, warmer or colder caches). Taking each round whose second
 * side is B (odd rounds) with the round after it, where B goes first, an order effect that
 * multiplies both cancels in the geometric mean of their two ratios. Returns those means (one per
 * whole pair of rounds) and, for scale, how the second side fared: the median over the pairs of
 * the square root of (ratio with B second) / (ratio with B first); 1 is no order effect.
 */
export function orderBalanced(rounds, key) {
  const means = [];
  const second = [];
  for (let k = 0; k + 1 < rounds.length; k += 2) {
    const [bSecond, bFirst] = [rounds[k][key], rounds[k + 1][key]];
    means.push(Math.sqrt(bSecond * bFirst));
    second.push(Math.sqrt(bSecond / bFirst));
  }
  return { means, median: median(means), secondSide: median(second) };
}
