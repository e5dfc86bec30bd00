// First: with an OTLP endpoint set, the OpenTelemetry SDK must patch http and pg before they load.
import './tracing/register';
import 'reflect-metadata';
import { createApp, stopAcceptingRequests } from './app.factory';
import { createRootLogger } from './common/logging/logger';
import { ConfigError } from './config/environment';
import { type AppConfig, loadConfig } from './config/configuration';
import { resolveDatabase } from './database/database';
import { stopTracing } from './tracing/tracing-state';

/**
 * Past the grace period, what shutdown may take before the process exits regardless: it ends within
 * the grace period plus 5 s whatever the database answers (contract section 8); jobs not recorded
 * are delivered again by the next instance.
 */
const SHUTDOWN_OVERRUN_MS = 3500;
/** Of that, what the embedded database gets to stop when shutdown is cut short. */
const FORCED_DATABASE_STOP_MS = 1000;
/** What exporting the last buffered spans may take, alongside the database's stop (contract section 12). */
const TRACES_FLUSH_MS = 1000;

type App = Awaited<ReturnType<typeof createApp>>;
type Database = Awaited<ReturnType<typeof resolveDatabase>>;
type Logger = ReturnType<typeof createRootLogger>;

/**
 * Signals are handled from the first moment: a SIGTERM during start-up (initdb, migrations) would
 * otherwise hit the default handler and leave the embedded database running with no owner. `on`,
 * not `once`: a second signal (a supervisor repeating it) must not kill the process mid-shutdown.
 */
function catchSignals(): {
  requested: () => string | undefined;
  handOver: (shutdown: (signal: string) => void) => void;
} {
  let requested: string | undefined;
  let shutdown: ((signal: string) => void) | undefined;
  const onSignal = (signal: string) => (shutdown ? shutdown(signal) : (requested ??= signal));
  process.on('SIGTERM', () => onSignal('SIGTERM'));
  process.on('SIGINT', () => onSignal('SIGINT'));
  return { requested: () => requested, handOver: (handler) => (shutdown = handler) };
}

/** The configuration, or one line on stderr naming the bad variable and exit 1 (contract section 1). */
function loadConfigOrExit(): ReturnType<typeof loadConfig> {
  try {
    return loadConfig(process.env);
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    process.stderr.write(`${error.message}\n`);
    process.exit(1);
  }
}

function startDatabase(config: AppConfig, logger: Logger): Promise<Database> {
  const context = { context: 'EmbeddedPostgres' };
  return resolveDatabase(config, (message) => logger.info(context, message), {
    warn: (message) => logger.warn(context, message),
    // The embedded PostgreSQL keeps dying: exit non-zero so the process supervisor starts afresh.
    onGiveUp: (reason) => {
      logger.fatal(context, reason);
      process.exit(1);
    },
  });
}

/**
 * Why the address HOST and PORT name cannot be listened on, as a bad configuration's one line
 * (contract section 1); undefined for any other start-up failure.
 */
function listenProblem(error: unknown, { host, port }: AppConfig['app']): string | undefined {
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  const address = `${host}:${port}`;
  switch (code) {
    case 'ENOTFOUND':
    case 'EAI_AGAIN':
      return `Invalid environment variable HOST: ${host} does not resolve to an address`;
    case 'EADDRNOTAVAIL':
      return `Invalid environment variable HOST: ${host} is not an address of this machine`;
    case 'EADDRINUSE':
      return `Cannot listen on ${address} (PORT): the port is already in use`;
    case 'EACCES':
      return `Cannot listen on ${address} (PORT): not permitted to use this port`;
    default:
      return undefined;
  }
}

async function listenOrExit(config: AppConfig, database: Database, logger: Logger): Promise<App> {
  let app: App | undefined;
  try {
    app = await createApp(config, database.url, logger);
    await app.listen({ port: config.app.port, host: config.app.host });
    return app;
  } catch (error) {
    const problem = listenProblem(error, config.app);
    if (problem === undefined) logger.fatal({ err: error }, 'start-up failed');
    else process.stderr.write(`${problem}\n`);
    await app?.close().catch(() => undefined);
    await database.stop();
    process.exit(1);
  }
}

/** Past the grace period and its overrun, the process exits 1 whatever the database does. */
function exitWhenShutdownOverruns(config: AppConfig, database: Database, logger: Logger): void {
  // Not unref'd: it is what ends a shutdown that waits on a statement the database never answers.
  setTimeout(() => {
    logger.error('shutdown did not finish in time (the database does not answer?): exiting');
    const stopped = database.stop().catch(() => undefined);
    const timeUp = new Promise((resolve) => setTimeout(resolve, FORCED_DATABASE_STOP_MS));
    void Promise.race([stopped, timeUp]).then(() => process.exit(1));
  }, config.app.shutdownGraceMs + SHUTDOWN_OVERRUN_MS);
}

/**
 * Graceful shutdown (contract section 1): stop accepting requests, then Nest runs the modules'
 * shutdown hooks (the dispatcher drains there) and closes the HTTP server, then the embedded
 * database stops, then exit 0. A second signal is only logged.
 */
function shutdownOnce(
  config: AppConfig,
  app: App,
  database: Database,
  logger: Logger,
): (signal: string) => Promise<void> {
  let stopping = false;
  return async (signal) => {
    if (stopping) return logger.info(`${signal} received again: already shutting down`);
    stopping = true;
    logger.info(`${signal} received: shutting down`);
    exitWhenShutdownOverruns(config, database, logger);
    try {
      stopAcceptingRequests(app);
      await app.close();
      await Promise.all([database.stop(), stopTracing(TRACES_FLUSH_MS)]);
      logger.info('shut down cleanly');
      process.exit(0);
    } catch (error) {
      logger.error({ err: error }, 'shutdown failed');
      await database.stop().catch(() => undefined);
      process.exit(1);
    }
  };
}

async function bootstrap(): Promise<void> {
  const signals = catchSignals();
  const { config, warnings } = loadConfigOrExit();
  const logger = createRootLogger(config.app.logLevel);
  for (const warning of warnings) logger.warn(warning);

  const database = await startDatabase(config, logger);
  const early = signals.requested();
  if (early) {
    logger.info(`${early} received during start-up: stopping`);
    await database.stop();
    process.exit(0);
  }
  const app = await listenOrExit(config, database, logger);
  const api = await app.getUrl();
  logger.info(`listening: API ${api}, portal ${api}/portal, docs ${api}/docs`);

  const shutdown = shutdownOnce(config, app, database, logger);
  signals.handOver((signal) => void shutdown(signal));
  // A signal that came while the application was starting.
  const late = signals.requested();
  if (late) await shutdown(late);
}

void bootstrap().catch((error: unknown) => {
  process.stderr.write(`start-up failed: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
});
