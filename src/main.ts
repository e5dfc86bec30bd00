import 'reflect-metadata';
import { createApp, stopAcceptingRequests } from './app.factory';
import { createRootLogger } from './common/logging/logger';
import { ConfigError } from './config/environment';
import { loadConfig } from './config/configuration';
import { resolveDatabase } from './database/database';

/**
 * Past the grace period, what shutdown may take before the process exits regardless: it ends within
 * the grace period plus 5 s whatever the database answers (contract section 8); jobs not recorded
 * are delivered again by the next instance.
 */
const SHUTDOWN_OVERRUN_MS = 3500;
/** Of that, what the embedded database gets to stop when shutdown is cut short. */
const FORCED_DATABASE_STOP_MS = 1000;

async function bootstrap(): Promise<void> {
  // Signals are handled from the first moment: a SIGTERM during start-up (initdb, migrations) would
  // otherwise hit the default handler and leave the embedded database running with no owner.
  let requested: string | undefined;
  const ready: { shutdown?: (signal: string) => Promise<void> } = {};
  const onSignal = (signal: string) => {
    if (ready.shutdown) void ready.shutdown(signal);
    else requested ??= signal;
  };
  // `on`, not `once`: a second signal (a supervisor repeating it) must not hit the default handler,
  // which would kill the process mid-shutdown and orphan the embedded database.
  process.on('SIGTERM', () => onSignal('SIGTERM'));
  process.on('SIGINT', () => onSignal('SIGINT'));

  let loaded;
  try {
    loaded = loadConfig(process.env);
  } catch (error) {
    if (error instanceof ConfigError) {
      process.stderr.write(`${error.message}\n`);
      process.exit(1);
    }
    throw error;
  }
  const { config, warnings } = loaded;
  const logger = createRootLogger(config.app.logLevel);
  for (const warning of warnings) logger.warn(warning);

  const context = { context: 'EmbeddedPostgres' };
  const database = await resolveDatabase(config, (message) => logger.info(context, message), {
    warn: (message) => logger.warn(context, message),
    // The embedded PostgreSQL keeps dying: exit non-zero so the process supervisor starts afresh.
    onGiveUp: (reason) => {
      logger.fatal(context, reason);
      process.exit(1);
    },
  });
  if (requested) {
    logger.info(`${requested} received during start-up: stopping`);
    await database.stop();
    process.exit(0);
  }
  let app;
  try {
    app = await createApp(config, database.url, logger);
    await app.listen({ port: config.app.port, host: config.app.host });
  } catch (error) {
    logger.fatal({ err: error }, 'start-up failed');
    await app?.close().catch(() => undefined);
    await database.stop();
    process.exit(1);
  }
  const api = await app.getUrl();
  logger.info(`listening: API ${api}, portal ${api}/portal, docs ${api}/docs`);

  // Graceful shutdown (contract section 1): stop accepting requests, then Nest runs the modules'
  // shutdown hooks (the dispatcher drains there) and closes the HTTP server, then the embedded
  // database stops, then exit 0.
  let stopping = false;
  const shutdown = async (signal: string) => {
    if (stopping) {
      logger.info(`${signal} received again: already shutting down`);
      return;
    }
    stopping = true;
    logger.info(`${signal} received: shutting down`);
    // Not unref'd: it is what ends a shutdown that waits on a statement the database never answers.
    setTimeout(() => {
      logger.error('shutdown did not finish in time (the database does not answer?): exiting');
      const stopped = database.stop().catch(() => undefined);
      const timeUp = new Promise((resolve) => setTimeout(resolve, FORCED_DATABASE_STOP_MS));
      void Promise.race([stopped, timeUp]).then(() => process.exit(1));
    }, config.app.shutdownGraceMs + SHUTDOWN_OVERRUN_MS);
    try {
      stopAcceptingRequests(app);
      await app.close();
      await database.stop();
      logger.info('shut down cleanly');
      process.exit(0);
    } catch (error) {
      logger.error({ err: error }, 'shutdown failed');
      await database.stop().catch(() => undefined);
      process.exit(1);
    }
  };
  ready.shutdown = shutdown;
  // A signal that came while the application was starting.
  if (requested) await shutdown(requested);
}

void bootstrap().catch((error: unknown) => {
  process.stderr.write(`start-up failed: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
});
