import 'reflect-metadata';
import { createApp } from './app.factory';
import { createRootLogger } from './common/logging/logger';
import { ConfigError } from './config/environment';
import { loadConfig } from './config/configuration';
import { resolveDatabase } from './database/database';

async function bootstrap(): Promise<void> {
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

  const database = await resolveDatabase(config, (message) =>
    logger.info({ context: 'EmbeddedPostgres' }, message),
  );
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
  logger.info(`listening on ${config.app.host}:${config.app.port}`);

  // Graceful shutdown (contract section 1): Nest closes the HTTP server and runs the modules'
  // shutdown hooks (the dispatcher drains there), then the embedded database stops, then exit 0.
  let stopping = false;
  const shutdown = async (signal: string) => {
    if (stopping) {
      logger.info(`${signal} received again: already shutting down`);
      return;
    }
    stopping = true;
    logger.info(`${signal} received: shutting down`);
    try {
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
  // `on`, not `once`: a second signal (a supervisor repeating it) must not hit the default handler,
  // which would kill the process mid-shutdown and orphan the embedded database.
  process.on('SIGTERM', () => void shutdown('SIGTERM'));
  process.on('SIGINT', () => void shutdown('SIGINT'));
}

void bootstrap().catch((error: unknown) => {
  process.stderr.write(`start-up failed: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
});
