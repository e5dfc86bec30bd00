/* global process, console */
// npm run bench [-- --quick] [--only api-read,api-me,...] [--profile] [--receiver-ports N]
//
// Starts the service as its own process (node dist/src/main.js; embedded PostgreSQL in a fresh
// temporary DATA_DIR, or a fresh database on DATABASE_URL's server), seeds it, measures the API and
// the webhook dispatcher beside baselines run in the same way on the same machine, prints a table
// and writes bench/results.json. Every child process and temporary folder is removed at the end,
// on failure and on Ctrl-C too. See bench/README.md. Each figure's code is in figures/.
import { randomBytes } from 'node:crypto';
import { chmodSync, copyFileSync, mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { apiFigures } from './figures/api.mjs';
import { DISPATCH_FIGURES, dispatchFigures, wantedDispatchFigure } from './figures/dispatch-group.mjs';
import { historyFigure, historyTarget } from './figures/history.mjs';
import { memoryFigure } from './figures/memory.mjs';
import { publishIdempotentFigure, publishIdempotentTarget } from './figures/publish-idempotent.mjs';
import { writeReceiverCertificates } from './lib/certs.mjs';
import { startReceiver } from './lib/receiver-process.mjs';
import { TARGETS } from './lib/config.mjs';
import { memoryOf, postmasterOf } from './lib/cpu.mjs';
import { dispatchTargets } from './lib/dispatch.mjs';
import { trackMemory } from './lib/measure.mjs';
import { cleanupAll, installExitHandlers, makeTempDir, onCleanup } from './lib/processes.mjs';
import { formatProfile, summariseCpuProfile } from './lib/profile.mjs';
import { formatCpuTable, formatTable, round } from './lib/report.mjs';
import {
  args,
  ctx,
  guarded,
  log,
  mode,
  now,
  receiverPorts,
  repoRoot,
  size,
  want,
} from './lib/run-context.mjs';
import { closeHttpClient, embeddedDatabaseUrl, startService } from './lib/service.mjs';
import { createDatabaseOnServer, createPartner, login, seedSubscriptions } from './lib/setup.mjs';

function serviceOptions(run, dataDir) {
  return {
    repoRoot,
    dataDir,
    logFile: join(run.tmp, 'service.log'),
    nodeArgs: [
      ...(args.profile ? ['--cpu-prof', `--cpu-prof-dir=${run.profDir}`] : []),
      ...(args['node-args']?.split(/\s+/).filter(Boolean) ?? []),
    ],
    env: {
      NODE_ENV: 'production',
      LOG_LEVEL: 'warn',
      JWT_SECRET: run.jwtSecret,
      SECRETS_KEY: ctx.secretsKey,
      BOOTSTRAP_ADMIN_EMAIL: 'bench-admin@example.com',
      BOOTSTRAP_ADMIN_PASSWORD: run.adminPassword,
      RATE_LIMIT_API_PER_MINUTE: '100000000',
      RATE_LIMIT_LOGIN_PER_MINUTE: '100000',
      // api-write creates subscriptions in one tenant for its whole run: far past the default cap.
      SUBSCRIPTIONS_PER_TENANT_MAX: '1000000',
      WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true',
      NODE_EXTRA_CA_CERTS: ctx.certs.ca,
      ...(run.serviceDatabaseUrl ? { DATABASE_URL: run.serviceDatabaseUrl } : {}),
    },
  };
}

/** The bench's own pool on the service's database, and the PostgreSQL server's pid for the CPU table. */
async function connectPool(run, dataDir) {
  ctx.databaseUrl = run.serviceDatabaseUrl ?? embeddedDatabaseUrl(dataDir);
  ctx.pool = new pg.Pool({ connectionString: ctx.databaseUrl, max: 3 });
  ctx.pool.on('error', () => undefined);
  onCleanup(() => ctx.pool.end());
  onCleanup(() => closeHttpClient());
  const { rows } = await ctx.pool.query('SELECT pg_backend_pid() AS pid');
  ctx.postmasterPid = postmasterOf(rows[0].pid);
}

/** Starts the receiver and the service, on a fresh database: what the rest of the run needs. */
async function startRun() {
  const tmp = makeTempDir('pis-bench-');
  // As root the embedded PostgreSQL runs as `postgres`, which must be able to enter DATA_DIR's parents.
  chmodSync(tmp, 0o711);
  const dataDir = join(tmp, 'data');
  ctx.certs = writeReceiverCertificates(tmp);
  const receiver = startReceiver(ctx.certs, receiverPorts);
  ctx.receiver = receiver.child;
  const receiverReady = receiver.ready;

  const databaseUrlGiven = Boolean(process.env.DATABASE_URL);
  const run = {
    tmp,
    databaseUrlGiven,
    serviceDatabaseUrl: databaseUrlGiven ? await createDatabaseOnServer(process.env.DATABASE_URL) : undefined,
    jwtSecret: randomBytes(48).toString('base64url'),
  };
  ctx.secretsKey = randomBytes(32).toString('base64'); // the bench seals signing secrets with it too
  run.adminPassword = randomBytes(12).toString('hex');
  run.partnerPassword = randomBytes(12).toString('hex');
  ctx.concurrency = Number(process.env.WEBHOOK_CONCURRENCY ?? 64);
  run.profDir = join(tmp, 'cpu-profile');
  if (args.profile) mkdirSync(run.profDir);

  log(
    `mode ${mode}; starting the service (${databaseUrlGiven ? 'DATABASE_URL server, fresh database' : 'embedded PostgreSQL'})`,
  );
  ctx.service = await startService(serviceOptions(run, dataDir));
  // For figures that start a second service alike (dispatch-traced, two-instances).
  Object.assign(ctx, {
    tmp,
    adminPassword: run.adminPassword,
    serviceOptions: (dir) => serviceOptions(run, dir),
  });
  run.stopMemory = trackMemory(ctx.service.pid);
  ctx.memory.readyMb = round(memoryOf(ctx.service.pid)?.rssMb, 1);
  await connectPool(run, dataDir);
  ({ ports: ctx.receiverPorts, hangPort: ctx.hangPort } = await receiverReady);
  log(`service ready in ${Math.round(now() - ctx.started)} ms (pid ${ctx.service.pid})`);
  return run;
}

/** The admin's token, and one partner per API figure with its token. */
async function setUpUsers(run) {
  const { partnerPassword } = run;
  ctx.phase = 'set-up (logins: argon2)';
  ctx.adminToken = await login('bench-admin@example.com', run.adminPassword);
  return {
    // One user per API figure: the rate limiter's per-token state of one figure does not weigh on the next.
    reader: await createPartner(ctx.adminToken, 'bench-reader@example.com', partnerPassword, 'bench-main'),
    me: await createPartner(ctx.adminToken, 'bench-me@example.com', partnerPassword, 'bench-main'),
    writer: await createPartner(ctx.adminToken, 'bench-writer@example.com', partnerPassword, 'bench-writer'),
    history: want('history')
      ? await createPartner(ctx.adminToken, 'bench-history@example.com', partnerPassword, 'bench-main')
      : undefined,
  };
}

async function runFigures(tokens, jwtSecret) {
  const apiTarget = `≥${TARGETS.apiRatio}× same-work, p99 ≤${TARGETS.apiP99Ms} ms`;
  await guarded(
    ['api-read', 'api-me', 'api-write'].filter(want),
    { 'api-read': apiTarget, 'api-me': apiTarget },
    () => apiFigures(tokens, jwtSecret),
  );
  await guarded(DISPATCH_FIGURES.filter(wantedDispatchFigure), dispatchTargets(), () => dispatchFigures());
  if (want('history'))
    await guarded(
      ['history'],
      { history: historyTarget() },
      () => historyFigure(tokens),
      size.historyTotal / 25_000 + 2 * (size.warmupS + size.durationS),
    );
  if (want('publish-idempotent'))
    await guarded(
      ['publish-idempotent'],
      { 'publish-idempotent': publishIdempotentTarget() },
      () => publishIdempotentFigure(),
      4 * (size.warmupS + size.durationS),
    );
  memoryFigure();
}

/** With --profile: stops the service and summarises its CPU profile of the measured windows. */
async function profileSummary(profDir) {
  if (!args.profile) return undefined;
  ctx.phase = 'stop';
  await ctx.service.stop();
  const file = readdirSync(profDir).find((f) => f.endsWith('.cpuprofile'));
  if (!file) {
    log('no .cpuprofile was written');
    return undefined;
  }
  const kept = join(tmpdir(), `pis-bench-${Date.now()}.cpuprofile`);
  copyFileSync(join(profDir, file), kept);
  return summariseCpuProfile(kept, 40, ctx.profileWindows);
}

function runMeta(databaseUrlGiven) {
  return {
    mode,
    date: new Date().toISOString(),
    node: process.version,
    cpus: cpus().length,
    cpuModel: cpus()[0]?.model,
    loadAverageAtStart: ctx.loadAtStart,
    loadAverageAtEnd: loadavg().map((l) => round(l, 2)),
    database: databaseUrlGiven
      ? 'DATABASE_URL server (fresh database)'
      : 'embedded PostgreSQL (fresh DATA_DIR)',
    sizes: size,
    receiverPorts: ctx.receiverPorts.length,
    webhookConcurrency: ctx.concurrency,
    elapsedS: round((now() - ctx.started) / 1000, 1),
    notes: [
      'ratio = value / first baseline; for ms figures lower is better, so a ratio above 1 means slower than the baseline',
      'all processes (service, PostgreSQL, load generator, receiver, baselines) share this machine',
    ],
  };
}

function printReport(meta, profile) {
  const lines = [
    '',
    `Partner Integration Service bench (${mode}; ${meta.cpus} CPUs; ${meta.database}; ${size.connections} connections, ${size.durationS} s per API run)`,
    '',
    formatTable(ctx.figures),
    '',
    'Ratio: value / baseline (for ms figures a ratio above 1 is slower than the baseline).',
    '',
    'CPU during each measured run (% of one core; bench = this process, the load generator):',
    formatCpuTable(ctx.cpuRuns),
  ];
  for (const f of ctx.figures) for (const note of f.notes ?? []) lines.push(`note ${f.figure}: ${note}`);
  if (profile) lines.push('', formatProfile(profile));
  lines.push('', `results: ${args.output}; total ${meta.elapsedS} s`);
  console.log(lines.join('\n'));
}

async function main() {
  installExitHandlers();
  ctx.started = now();
  ctx.loadAtStart = loadavg().map((l) => round(l, 2));
  const run = await startRun();
  const tokens = await setUpUsers(run);
  await seedSubscriptions();
  ctx.memory.afterSeedMb = round(memoryOf(ctx.service.pid)?.rssMb, 1);
  await runFigures(tokens, run.jwtSecret);
  run.stopMemory();
  if (args.hold) {
    log(`holding (Ctrl-C to stop): service ${ctx.service.base}, database ${ctx.databaseUrl}`);
    log(`admin token: ${ctx.adminToken}`);
    log(`reader token: ${tokens.reader}`);
    await new Promise(() => undefined);
  }
  const profile = await profileSummary(run.profDir);
  const meta = runMeta(run.databaseUrlGiven);
  writeFileSync(
    args.output,
    JSON.stringify({ meta, figures: ctx.figures, cpu: ctx.cpuRuns, profile }, null, 2) + '\n',
  );
  printReport(meta, profile);
}

let exitCode = 0;
try {
  await main();
  if (args.strict && ctx.figures.some((f) => f.error)) exitCode = 1;
} catch (error) {
  exitCode = 1;
  log(`failed: ${error?.stack ?? error}`);
} finally {
  await cleanupAll();
}
process.exit(exitCode);
